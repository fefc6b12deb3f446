//! The mnemonic and modifiers of an instruction as the generated formatter prints them (`LDG.E.STRONG.GPU`,
//! identical to nvdisasm), without its guard or operands, formatted into a stack buffer: lowerings ask this
//! of every memory access, where a `String` per instruction showed in profiles.

use sassport_gen::{Instruction, TargetStyle};
use std::fmt;

/// Longest line kept on the stack; longer ones (none in SM86 text) go through a `String`.
const CAP: usize = 192;

/// An instruction's head: `MNEMONIC.MOD.MOD`.
pub struct Head {
    buf: [u8; CAP],
    start: usize,
    end: usize,
    spilled: Option<String>,
}

impl Head {
    /// The head of `inst`.
    pub fn of(inst: &Instruction) -> Head {
        let mut w = StackWriter { buf: [0; CAP], len: 0 };
        let spilled = match inst.write_text(&mut w, 0, TargetStyle::Absolute) {
            Ok(()) => None,
            Err(_) => Some(inst.text(0, TargetStyle::Absolute)),
        };
        let text: &[u8] = match &spilled {
            Some(s) => s.as_bytes(),
            None => &w.buf[..w.len],
        };
        let (start, end) = head_range(text);
        Head { buf: w.buf, start, end, spilled }
    }

    /// `MNEMONIC.MOD.MOD`.
    pub fn as_str(&self) -> &str {
        let bytes = match &self.spilled {
            Some(s) => s.as_bytes(),
            None => &self.buf,
        };
        bytes.get(self.start..self.end).and_then(|b| std::str::from_utf8(b).ok()).unwrap_or("")
    }

    /// The modifiers after the mnemonic (`E`, `STRONG`, `GPU`).
    pub fn modifiers(&self) -> impl Iterator<Item = &str> {
        self.as_str().split('.').skip(1)
    }
}

/// Byte range of the head in a line: after an `@Px ` guard, up to the first space or `;`.
fn head_range(text: &[u8]) -> (usize, usize) {
    let mut start = 0;
    if text.first() == Some(&b'@') {
        start = text.iter().position(|&b| b == b' ').map_or(text.len(), |k| k + 1);
    }
    let end = text[start..].iter().position(|&b| b == b' ' || b == b';').map_or(text.len(), |k| start + k);
    (start, end)
}

/// `fmt::Write` into a fixed buffer; fails when full.
struct StackWriter {
    buf: [u8; CAP],
    len: usize,
}

impl fmt::Write for StackWriter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let dst = self.buf.get_mut(self.len..self.len + s.len()).ok_or(fmt::Error)?;
        dst.copy_from_slice(s.as_bytes());
        self.len += s.len();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sassport_gen::Control;

    fn head(text: &str) -> String {
        let word = sassport_gen::encode_text(text, 0, Control::default()).expect(text);
        Head::of(&sassport_gen::decode(word).expect(text)).as_str().to_string()
    }

    #[test]
    fn guard_and_operands_are_dropped() {
        assert_eq!(head("@!P1 LDG.E.STRONG.GPU R2, [R4.64] ;"), "LDG.E.STRONG.GPU");
        assert_eq!(head("ISETP.LT.U32.AND P1, PT, R9, 0x1f4, PT ;"), "ISETP.LT.U32.AND");
        assert_eq!(head("EXIT ;"), "EXIT");
    }
}
