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
    vec![
        inc(0, 0x5C, 5),
        va as u32,
        (va >> 32) as u32,
        payload,
        0,
        exec,
    ]
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
    Command::new(env!("CARGO_BIN_EXE_sassport"))
        .arg("replay")
        .arg(m)
        .arg(g)
        .arg(o)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn writes_the_image_after_a_complete_stream() {
    let d = dir("ok");
    // Release 0xAB (16-byte, timestamp) at 0x400, then acquire it back (EQ), then a 4-byte release.
    let (m, g, o) = setup(
        &d,
        &[
            (0x100, sem(0x400, 0xAB, 1 | 1 << 25)),
            (0x200, sem(0x400, 0xAB, 0)),
            (0x300, sem(0x420, 7, 1)),
        ],
        0x1000,
    );
    let out = replay(&m, &g, &o, &["--clock-step-ns", "250", "--sector-layout", "turing2d"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    let (m, g, o) = setup(
        &d,
        &[(0x100, sem(0x400, 1, 1)), (0x200, sem(0x400, 2, 0))],
        0x1000,
    );
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("GP entry 1") && err.contains("SEM_EXECUTE") && err.contains("never complete"),
        "{err}"
    );
    assert!(!o.exists());
}

#[test]
fn unsupported_commands_fail_by_name() {
    let d = dir("unsupported");
    let (m, g, o) = setup(&d, &[(0x100, vec![inc(0, 0x84, 1), 0])], 0x1000); // CLEAR_FAULTED
    let out = replay(&m, &g, &o, &["--sector-layout", "16bx2"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("GP entry 0") && err.contains("CLEAR_FAULTED"),
        "{err}"
    );
    assert!(!o.exists());
    // A GP control entry other than NOP.
    std::fs::write(&g, (1u64 << 32).to_le_bytes()).unwrap();
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("ILLEGAL"));
    // An unknown sector layout is refused by clap, and so is none: the order is never guessed.
    let out = replay(&m, &g, &o, &["--sector-layout", "zigzag"]);
    assert!(!out.status.success());
    let out = replay(&m, &g, &o, &[]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--sector-layout"));
    assert!(!o.exists());
}

fn non_inc(subc: u32, mthd: u32, count: u32) -> u32 {
    0x6000_0000 + (count << 16) + (subc << 13) + (mthd >> 2)
}

#[test]
fn streams_using_the_copy_engines_replay() {
    // Method offsets from clc6b5.h / cla140.h as recorded in the note (§3, §4).
    let mut w = vec![inc(4, 0x000, 1), 0xC6B5];
    // OFFSET_IN_UPPER/LOWER, OFFSET_OUT_UPPER/LOWER, PITCH_IN/OUT, LINE_LENGTH_IN, LINE_COUNT.
    w.extend([inc(4, 0x400, 8), 0, 0x300, 0, 0x380, 16, 16, 16, 1]);
    // SET_SEMAPHORE_A/B/PAYLOAD.
    w.extend([inc(4, 0x240, 3), 0, 0x3C0, 7]);
    // LAUNCH_DMA: NON_PIPELINED (2), ONE_WORD semaphore (1 << 3), src/dst PITCH (bits 7, 8), MULTI_LINE.
    w.extend([inc(4, 0x300, 1), 2 | 1 << 3 | 1 << 7 | 1 << 8 | 1 << 9]);
    // Inline-to-memory on subchannel 2: LINE_LENGTH_IN, LINE_COUNT, OFFSET_OUT_UPPER, OFFSET_OUT.
    w.extend([inc(2, 0x000, 1), 0xA140, inc(2, 0x180, 4), 8, 1, 0, 0x200]);
    // LAUNCH_DMA pitch destination, then LOAD_INLINE_DATA as a non-incrementing burst.
    w.extend([
        inc(2, 0x1B0, 1),
        1,
        non_inc(2, 0x1B4, 2),
        0x1122_3344,
        0x5566_7788,
    ]);
    w.extend(sem(0x3E0, 0xAB, 1 | 1 << 25));
    let d = dir("copy");
    let (m, g, o) = setup(&d, &[(0x40, w)], 0x400);
    let mut img = std::fs::read(&m).unwrap();
    img[0x300..0x310].copy_from_slice(&(1..=16).collect::<Vec<u8>>());
    std::fs::write(&m, &img).unwrap();
    let out = replay(&m, &g, &o, &["--sector-layout", "16bx2"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let res = std::fs::read(&o).unwrap();
    assert_eq!(&res[0x380..0x390], &img[0x300..0x310], "DMA copy");
    assert_eq!(&res[0x3C0..0x3C4], &[7, 0, 0, 0], "DMA one-word semaphore");
    assert_eq!(
        &res[0x200..0x208],
        &[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55],
        "inline data"
    );
    assert_eq!(
        &res[0x3E0..0x3E8],
        &[0xAB, 0, 0, 0, 0, 0, 0, 0],
        "host release"
    );
}

/// The exact streams of the hostile-input probe (issue 24, item 5): inline-to-memory on subchannel 2 set up
/// for 8 bytes at 0x200 and launched, then fewer LOAD_INLINE_DATA words than it needs.
fn unfinished_inline_upload() -> Vec<u32> {
    vec![
        inc(2, 0x000, 1),
        0xA140,
        inc(2, 0x180, 4),
        8,
        1,
        0,
        0x200,
        inc(2, 0x1B0, 1),
        1,
        non_inc(2, 0x1B4, 1),
        0x1122_3344,
    ]
}

/// Whether `dir` holds anything but the three files of [`setup`] (a temporary file left behind).
fn strays(d: &PathBuf) -> Vec<String> {
    std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !["mem.bin", "gpfifo.bin", "out.bin"].contains(&n.as_str()))
        .collect()
}

#[test]
fn a_stream_ending_inside_an_inline_upload_fails_and_writes_nothing() {
    let d = dir("inline-cut");
    let (m, g, o) = setup(&d, &[(0x40, unfinished_inline_upload())], 0x400);
    // The exact bytes: one GP entry of 11 words at 0x40.
    assert_eq!(std::fs::read(&g).unwrap(), [0x40, 0, 0, 0, 0, 0x2C, 0, 0]);
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("KEPLER_INLINE_TO_MEMORY_B") && err.contains("1 LOAD_INLINE_DATA word(s) missing"),
        "{err}"
    );
    assert!(!o.exists());
    // An OUT that exists is left exactly as it was.
    std::fs::write(&o, b"previous").unwrap();
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&o).unwrap(), b"previous");
    assert_eq!(strays(&d), Vec::<String>::new());
    // With its second word the same stream completes.
    let mut whole = unfinished_inline_upload();
    *whole.iter_mut().rev().nth(1).unwrap() = non_inc(2, 0x1B4, 2);
    whole.push(0x5566_7788);
    let (m, g, o) = setup(&d, &[(0x40, whole)], 0x400);
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(&std::fs::read(&o).unwrap()[0x200..0x208], &[0x44, 0x33, 0x22, 0x11, 0x88, 0x77, 0x66, 0x55]);
    assert_eq!(strays(&d), Vec::<String>::new());
}

#[test]
fn a_method_header_without_its_data_words_fails_and_writes_nothing() {
    let d = dir("packet-cut");
    // SEM_ADDR_LO.. as one incrementing header of 5 words, only 3 of them present; then the same header
    // split over two GP entries, still one word short.
    let mut short = sem(0x400, 1, 1);
    short.truncate(4);
    let (m, g, o) = setup(&d, &[(0x100, short)], 0x1000);
    assert_eq!(std::fs::read(&m).unwrap()[0x100..0x104], [0x17, 0, 0x05, 0x20]);
    std::fs::write(&o, b"previous").unwrap();
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 data word(s) for method 0x68") && err.contains("missing"), "{err}");
    assert_eq!(std::fs::read(&o).unwrap(), b"previous");
    let full = sem(0x400, 1, 1);
    let (m, g, o) = setup(&d, &[(0x100, full[..3].to_vec()), (0x200, full[3..5].to_vec())], 0x1000);
    let _ = std::fs::remove_file(&o);
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 data word(s) for method 0x6c"));
    assert!(!o.exists());
    assert_eq!(strays(&d), Vec::<String>::new());
}

#[test]
fn the_image_replaces_out_whole_and_a_missing_directory_is_an_error() {
    let d = dir("atomic");
    let (m, g, o) = setup(&d, &[(0x100, sem(0x400, 0xAB, 1))], 0x1000);
    std::fs::write(&o, vec![0xEE; 0x3000]).unwrap();
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let img = std::fs::read(&o).unwrap();
    assert_eq!(img.len(), 0x1000, "the old, longer file is replaced, not overwritten in place");
    assert_eq!(&img[0x400..0x404], &[0xAB, 0, 0, 0]);
    assert_eq!(strays(&d), Vec::<String>::new());
    let nowhere = d.join("no-such-dir").join("out.bin");
    let out = replay(&m, &g, &nowhere, &["--sector-layout", "turing2d"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("writing"));
    assert!(!d.join("no-such-dir").exists());
}

#[test]
fn an_out_name_as_long_as_the_file_system_allows_is_written() {
    let d = dir("long-name");
    let (m, g, _) = setup(&d, &[(0x100, sem(0x400, 0xAB, 1))], 0x1000);
    let o = d.join("o".repeat(255));
    let out = replay(&m, &g, &o, &["--sector-layout", "turing2d"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&o).unwrap().len(), 0x1000);
}
