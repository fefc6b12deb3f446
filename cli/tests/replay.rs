//! `sassport replay` on small hand-assembled GPFIFO streams.

use std::path::PathBuf;
use std::process::Command;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sassport-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x2000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}

/// GP entry: ENTRY0 = address bits 31:2, ENTRY1 = GET_HI 7:0 | LENGTH << 10.
fn gp(address: u64, words: u32) -> [u8; 8] {
    let e0 = (address as u32) & !3;
    let e1 = ((address >> 32) as u32 & 0xFF) | words << 10;
    ((e1 as u64) << 32 | e0 as u64).to_le_bytes()
}

/// SEM_ADDR_LO/HI, SEM_PAYLOAD_LO/HI, SEM_EXECUTE (0x5C..0x6C) in one incrementing header.
fn sem(va: u64, payload: u32, exec: u32) -> Vec<u32> {
    vec![inc(0, 0x5C, 5), va as u32, (va >> 32) as u32, payload, 0, exec]
}

fn setup(d: &PathBuf, segments: &[(u64, Vec<u32>)], size: usize) -> (PathBuf, PathBuf, PathBuf) {
    let mut img = vec![0u8; size];
    let mut fifo = vec![];
    for (at, words) in segments {
        let b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        img[*at as usize..*at as usize + b.len()].copy_from_slice(&b);
        fifo.extend(gp(*at, words.len() as u32));
    }
    let (m, g, o) = (d.join("mem.bin"), d.join("gpfifo.bin"), d.join("out.bin"));
    std::fs::write(&m, img).unwrap();
    std::fs::write(&g, fifo).unwrap();
    (m, g, o)
}

fn replay(m: &PathBuf, g: &PathBuf, o: &PathBuf, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sassport")).arg("replay").arg(m).arg(g).arg(o).args(extra).output().unwrap()
}

#[test]
fn writes_the_image_after_a_complete_stream() {
    let d = dir("ok");
    // Release 0xAB (16-byte, timestamp) at 0x400, then acquire it back (EQ), then a 4-byte release.
    let (m, g, o) = setup(
        &d,
        &[(0x100, sem(0x400, 0xAB, 1 | 1 << 25)), (0x200, sem(0x400, 0xAB, 0)), (0x300, sem(0x420, 7, 1))],
        0x1000,
    );
    let out = replay(&m, &g, &o, &["--clock-step-ns", "250"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let img = std::fs::read(&o).unwrap();
    assert_eq!(img.len(), 0x1000);
    assert_eq!(&img[0x400..0x408], &[0xAB, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(&img[0x408..0x410], &0u64.to_le_bytes(), "first timestamp");
    assert_eq!(&img[0x420..0x424], &[7, 0, 0, 0]);
    let input = std::fs::read(&m).unwrap();
    assert_eq!(&img[..0x400], &input[..0x400]);
}

#[test]
fn an_unsatisfiable_wait_fails_naming_entry_and_method_and_writes_nothing() {
    let d = dir("wait");
    let (m, g, o) = setup(&d, &[(0x100, sem(0x400, 1, 1)), (0x200, sem(0x400, 2, 0))], 0x1000);
    let out = replay(&m, &g, &o, &[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("GP entry 1") && err.contains("SEM_EXECUTE") && err.contains("never complete"), "{err}");
    assert!(!o.exists());
}

#[test]
fn unsupported_commands_fail_by_name() {
    let d = dir("unsupported");
    let (m, g, o) = setup(&d, &[(0x100, vec![inc(0, 0x84, 1), 0])], 0x1000); // CLEAR_FAULTED
    let out = replay(&m, &g, &o, &["--sector-layout", "16bx2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("GP entry 0") && err.contains("CLEAR_FAULTED"), "{err}");
    assert!(!o.exists());
    // A GP control entry other than NOP.
    std::fs::write(&g, (1u64 << 32).to_le_bytes()).unwrap();
    let out = replay(&m, &g, &o, &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("ILLEGAL"));
    // An unknown sector layout is refused by clap.
    let out = replay(&m, &g, &o, &["--sector-layout", "zigzag"]);
    assert!(!out.status.success());
    assert!(!o.exists());
}
