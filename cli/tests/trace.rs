//! `sassport trace` on small hand-assembled pushbuffers (header words from NVK's nv_push.h formulas).

use std::path::PathBuf;
use std::process::Command;

fn tmp(name: &str, words: &[u32]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sassport-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(
        &p,
        words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    p
}

fn inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x2000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}
fn imm(subc: u32, mthd: u32, data: u32) -> u32 {
    0x8000_0000 + (data << 16) + (subc << 13) + (mthd >> 2)
}

fn sassport(args: &[&std::ffi::OsStr]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .arg("trace")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn prints_every_method_across_files() {
    // File 1: SET_OBJECT 0xC6B5 on subchannel 4, then a header whose data continues into file 2.
    let a = tmp(
        "a.bin",
        &[inc(4, 0x000, 1), 0xC6B5, inc(4, 0x400, 3), 0x1111],
    );
    let b = tmp(
        "b.bin",
        &[0x2222, 0x3333, imm(0, 0x008, 0x7), 0xE000_0000, 0xFFFF_FFFF],
    );
    let out = sassport(&[a.as_os_str(), b.as_os_str()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(
        lines[0].starts_with("00000004  subc 4  0x0000 SET_OBJECT")
            && lines[0].ends_with("0x0000c6b5"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("0x0400 C6B5") && lines[1].ends_with("0x00001111"),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].starts_with("00000010")
            && lines[2].contains("0x0404")
            && lines[2].ends_with("0x00002222")
    );
    assert!(lines[3].contains("0x0408") && lines[3].ends_with("0x00003333"));
    assert!(lines[4].contains("0x0008 NOP") && lines[4].ends_with("0x00000007"));
    assert!(
        lines[5].contains("END_PB_SEGMENT") && lines[5].contains("remaining 4 bytes"),
        "{}",
        lines[5]
    );
}

#[test]
fn refuses_bad_streams_naming_the_offset() {
    let p = tmp("bad.bin", &[imm(0, 0x008, 1), 0x0003_0000]);
    let out = sassport(&[p.as_os_str()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("USE_SUBDEVICE_MASK") && err.contains("0x4"),
        "{err}"
    );
    // The call before the bad word is still printed.
    assert!(String::from_utf8_lossy(&out.stdout).contains("NOP"));

    let p = tmp("short.bin", &[inc(0, 0x100, 3), 1]);
    let out = sassport(&[p.as_os_str()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 data word(s)"), "{err}");

    let p = tmp("reserved.bin", &[inc(0, 0x100, 1) | 0x1000, 0]);
    let out = sassport(&[p.as_os_str()]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("reserved bit 12"));
}

#[test]
fn entries_flag_prints_headers() {
    let p = tmp(
        "entries.bin",
        &[0, inc(4, 0x400, 2), 1, 2, imm(1, 0x100, 9)],
    );
    let out = Command::new(env!("CARGO_BIN_EXE_sassport"))
        .args(["trace", "--entries"])
        .arg(&p)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success());
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines[0], "00000000  [00000000] NOP entry");
    assert_eq!(
        lines[1],
        "00000004  [20028100] inc header: subc 4, method 0x0400, count 2"
    );
    assert!(
        lines[4]
            .starts_with("00000010  [80092040] immediate header: subc 1, method 0x0100, data 0x9"),
        "{}",
        lines[4]
    );
    assert!(
        lines[5].starts_with("00000010  subc 1  0x0100"),
        "{}",
        lines[5]
    );
}
