//! GP entry decoding and the GPFIFO ring: arbitrary 8-byte entries. Checks: no panic; valid segment
//! entries re-encode to the same bits; the ring returns entries in order and never holds more than
//! capacity − 1.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_engines::ring::GpFifoRing;
use sassport_pushbuffer::GpEntry;

fuzz_target!(|data: &[u8]| {
    let Some((&log2, rest)) = data.split_first() else {
        return;
    };
    let mut ring = match GpFifoRing::new(1 + log2 as u32 % 6) {
        Ok(r) => r,
        Err(_) => return,
    };
    let mut expected = std::collections::VecDeque::new();
    for chunk in rest.chunks_exact(8) {
        let raw = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        match GpEntry::decode(raw) {
            Ok(e @ GpEntry::Segment(s)) => {
                assert_eq!(e.encode(), raw);
                assert!(s.address < 1 << 40 && s.address % 4 == 0 && s.length_words > 0);
            }
            Ok(GpEntry::Nop { operand }) => assert_eq!(operand, raw as u32),
            Err(e) => assert_eq!(e.raw, raw),
        }
        if ring.push(raw).is_ok() {
            expected.push_back(raw);
        } else {
            assert_eq!(ring.len(), ring.capacity() - 1);
            let (_, got) = ring.pop().unwrap_or((0, !0));
            assert_eq!(Some(got), expected.pop_front());
        }
        assert!(ring.len() < ring.capacity());
    }
    while let Some((_, got)) = ring.pop() {
        assert_eq!(Some(got), expected.pop_front());
    }
    assert!(expected.is_empty());
});
