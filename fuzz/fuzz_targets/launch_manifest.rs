//! Fuzzes the corpus launch-manifest parser: any text must give launches or a typed error naming a line,
//! never a panic; parsed launches must print back to text that parses to the same launches.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_corpus::launch;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    match launch::parse(text) {
        Ok(launches) => {
            for l in &launches {
                let again = launch::parse(&l.to_string()).expect("a parsed launch prints back parseable");
                assert_eq!(again.len(), 1);
                assert_eq!((&again[0].kernel, &again[0].args, again[0].grid), (&l.kernel, &l.args, l.grid));
                let _ = l.param_bytes(&vec![0x1000; l.args.iter().filter(|a| a.is_buffer()).count()]);
            }
        }
        Err(e) => assert!(e.line >= 1 && e.line <= text.lines().count()),
    }
});
