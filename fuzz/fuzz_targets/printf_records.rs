//! The host-side printf formatter reads what kernels wrote to the printf area: record lists, format strings
//! and argument bytes are untrusted. Splits the input into a record area, a format and a string pool, parses
//! the records and formats each; malformed input must give typed errors or `<printf: ...>` markers, never a
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_runtime::printf::{format, format_record, parse_records};

fuzz_target!(|data: &[u8]| {
    let Some((&split, rest)) = data.split_first() else { return };
    let cut = (usize::from(split) * rest.len() / 256).min(rest.len());
    let (area, pool) = rest.split_at(cut);
    // Strings: the pool from an address-derived offset, up to a NUL; some addresses are "outside the window".
    let mut strings = |a: u64| -> Result<Vec<u8>, String> {
        if a % 7 == 0 || pool.is_empty() {
            return Err("outside the window".into());
        }
        let start = (a as usize) % pool.len();
        Ok(pool[start..].iter().take_while(|&&b| b != 0).copied().collect())
    };
    let (records, _problem) = parse_records(&area[..area.len() / 4 * 4]);
    for r in &records {
        let _ = format_record(r, &mut strings);
    }
    // The pool itself as a format with the area as arguments.
    let _ = format(pool, area, &mut strings);
});
