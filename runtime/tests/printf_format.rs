//! The host-side printf formatter against the C library's `snprintf` (glibc: what the CUDA driver formats
//! device printf output with on Linux), and on arbitrary bytes: it parses what kernels wrote, so it must never
//! panic, whatever the format, arguments or records.

use proptest::prelude::*;
use sassport_runtime::printf::{format, parse_records};
use std::ffi::{c_char, c_int, CString};

extern "C" {
    fn snprintf(buf: *mut c_char, n: usize, fmt: *const c_char, ...) -> c_int;
}

fn c_int_fmt(spec: &str, v: i32) -> String {
    let f = CString::new(spec).expect("no NUL");
    let mut buf = vec![0u8; 512];
    let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr(), v as c_int) };
    buf.truncate(n.max(0) as usize);
    String::from_utf8(buf).expect("ascii")
}

fn c_long_fmt(spec: &str, v: i64) -> String {
    let f = CString::new(spec).expect("no NUL");
    let mut buf = vec![0u8; 512];
    let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr(), v as std::ffi::c_longlong) };
    buf.truncate(n.max(0) as usize);
    String::from_utf8(buf).expect("ascii")
}

fn c_double_fmt(spec: &str, v: f64) -> String {
    let f = CString::new(spec).expect("no NUL");
    let mut buf = vec![0u8; 512];
    let n = unsafe { snprintf(buf.as_mut_ptr().cast(), buf.len(), f.as_ptr(), v) };
    buf.truncate(n.max(0) as usize);
    String::from_utf8(buf).expect("ascii")
}

fn ours(spec: &str, args: &[u8]) -> String {
    format(spec.as_bytes(), args, &mut |_| Err("no strings here".into()))
}

fn spec_strategy(convs: &'static [char]) -> impl Strategy<Value = String> {
    (
        proptest::sample::subsequence(vec!['-', '+', ' ', '#', '0'], 0..=3),
        proptest::option::of(0usize..24),
        proptest::option::of(0usize..20),
        proptest::sample::select(convs),
    )
        .prop_map(|(flags, width, precision, conv)| {
            let mut s = String::from("%");
            s.extend(flags);
            if let Some(w) = width {
                s.push_str(&w.to_string());
            }
            if let Some(p) = precision {
                s.push('.');
                s.push_str(&p.to_string());
            }
            s.push(conv);
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn ints_match_glibc(spec in spec_strategy(&['d', 'i', 'u', 'x', 'X', 'o']), v in any::<i32>()) {
        prop_assert_eq!(ours(&spec, &v.to_le_bytes()), c_int_fmt(&spec, v), "{}", spec);
    }

    #[test]
    fn long_longs_match_glibc(spec in spec_strategy(&['d', 'u', 'x', 'o']), v in any::<i64>()) {
        let spec = spec.replacen(|c: char| "duxo".contains(c), &format!("ll{}", spec.chars().last().unwrap_or('d')), 1);
        // Packed after an int: 4 bytes of padding, as the device buffer aligns 8-byte arguments.
        let mut args = 7i32.to_le_bytes().to_vec();
        args.extend([0; 4]);
        args.extend(v.to_le_bytes());
        let f = format!("%d{spec}");
        let want = format!("7{}", c_long_fmt(&spec, v));
        prop_assert_eq!(ours(&f, &args), want, "{}", spec);
    }

    #[test]
    fn doubles_match_glibc(
        spec in spec_strategy(&['f', 'F', 'e', 'E', 'g', 'G']),
        v in prop_oneof![any::<f64>(), -1e6f64..1e6, -1.0f64..1.0, Just(0.0), Just(-0.0), Just(f64::INFINITY), Just(f64::NAN), Just(0.5), Just(2.5), Just(1e-5)],
    ) {
        prop_assert_eq!(ours(&spec, &v.to_le_bytes()), c_double_fmt(&spec, v), "{} of {:e}", spec, v);
    }

    #[test]
    fn hex_floats_match_glibc(v in prop_oneof![any::<f64>(), -1e6f64..1e6], alt in any::<bool>()) {
        let spec = if alt { "%#a" } else { "%a" };
        prop_assert_eq!(ours(spec, &v.to_le_bytes()), c_double_fmt(spec, v), "{} of {:e}", spec, v);
    }

    #[test]
    fn arbitrary_formats_never_panic(fmt in proptest::collection::vec(any::<u8>(), 0..64), args in proptest::collection::vec(any::<u8>(), 0..64)) {
        let out = format(&fmt, &args, &mut |a| if a % 3 == 0 { Ok(vec![b'x'; (a % 50) as usize]) } else { Err("bad".into()) });
        // Widths are clamped: a hostile format cannot make the output huge.
        prop_assert!(out.len() <= 64 * 4200);
    }

    #[test]
    fn arbitrary_records_never_panic(area in proptest::collection::vec(any::<u8>(), 0..512)) {
        let (records, _) = parse_records(&area);
        for r in records {
            prop_assert!(r.args.len() <= area.len());
        }
    }
}

#[test]
fn strings_come_from_the_reader() {
    let mut args = 0x7f00_0000_0100u64.to_le_bytes().to_vec();
    args.extend(0x10u64.to_le_bytes());
    let out = format(b"<%-8s|%.2s|%s>", &[args.clone(), args[..8].to_vec()].concat(), &mut |a| {
        if a == 0x7f00_0000_0100 {
            Ok(b"hello".to_vec())
        } else {
            Err("outside the window".into())
        }
    });
    assert_eq!(out, "<hello   |<printf: %s argument 0x10: outside the window>|hello>");
}
