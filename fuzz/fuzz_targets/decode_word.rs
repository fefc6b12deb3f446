//! Decode and print arbitrary bytes as SM86 instruction words: nothing may panic, printing a decoded
//! word twice gives the same text, its `dis --control` line assembles back to it, and its register accesses
//! stay below each file's zero register.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_gen::{decode_all, TargetStyle};

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    let mut again = String::new();
    for (address, result) in decode_all(data, 0x1000) {
        if let Ok(inst) = result {
            text.clear();
            again.clear();
            let _ = inst.write_text(&mut text, address, TargetStyle::Absolute);
            let _ = inst.write_text(&mut again, address, TargetStyle::Absolute);
            assert_eq!(text, again);
            let _ = inst.text(address, TargetStyle::Label);
            let _ = inst.view();
            // The control listing line of a decoded word assembles back to the word.
            let mut line = String::new();
            sassport_gen::write_control_line(&mut line, inst.word(), address);
            let back = sassport_gen::assemble(&line).expect("a control line assembles");
            assert_eq!(back, [inst.word()]);
            for f in inst.fields() {
                let _ = f.extract(inst.word());
            }
            for a in inst.accesses().into_iter().flatten() {
                assert!(a.count >= 1 && u16::from(a.first) + u16::from(a.count) <= sassport_gen::zero_register(a.file));
            }
        }
    }
});
