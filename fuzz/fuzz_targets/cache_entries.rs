//! On-disk cache entries: the translated-module entry, the float self-test record and the pipeline-cache
//! file, each through the public function the runtime loads them with.
//!
//! The first byte picks the key the reader looks for (of four) and whether the device has f64; with its
//! bit 4 clear the rest is a whole file (random bytes almost never carry a right hash: this drives the
//! framing and the refusals), with it set the rest is a payload sealed correctly under the looked-for key
//! (this drives the payload parsers behind the hash). Checks: no panic; whatever is accepted re-seals to
//! exactly the bytes read (only an intact entry of exactly that key is used); accepted samples are
//! plausible; the pipeline header check agrees with the fields it reads.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sassport_runtime::cache_entry::{
    open, seal, FLOAT_RECORD_MAGIC, PIPELINE_CACHE_MAGIC, SPIRV_MAGIC,
};
use sassport_runtime::{
    entry_bytes, float_record_bytes, header_names, parse_entry, parse_float_record,
};

const KEYS: [&str; 4] = [
    "kernel=k\ncubin=00:0\nprofile=p\ntranslator=t\n",
    "kernel=other\n",
    "",
    "device=10de-2335-00000000-00\n",
];

const UUID: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];

fn check_all(spirv: &[u8], record: &[u8], pipeline: &[u8], key: &str, float64: bool) {
    if let Ok(words) = parse_entry(spirv, key) {
        assert_eq!(words.first(), Some(&0x0723_0203));
        assert_eq!(entry_bytes(key, &words), spirv, "an accepted module entry is its sealed form");
    }
    if let Ok(samples) = parse_float_record(record, key, float64) {
        assert!(samples.check(float64).is_ok());
        assert_eq!(samples.fma_f64.is_some(), float64);
        assert_eq!(float_record_bytes(key, &samples), record);
    }
    if let Ok(payload) = open(pipeline, PIPELINE_CACHE_MAGIC, key.as_bytes()) {
        assert_eq!(seal(PIPELINE_CACHE_MAGIC, key.as_bytes(), payload), pipeline);
        if header_names(payload, 0x10de, 0x2335, &UUID) {
            assert!(payload.len() >= 32 && payload[16..32] == UUID);
            let len = u32::from_le_bytes([payload[0], payload[1], payload[2], payload[3]]);
            assert!(len as usize >= 32 && len as usize <= payload.len());
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&head, rest)) = data.split_first() else {
        return;
    };
    let key = KEYS[(head & 3) as usize];
    let float64 = head & 4 != 0;
    if head & 0x10 == 0 {
        check_all(rest, rest, rest, key, float64);
        // The header check on raw bytes, against the ids the bytes themselves carry.
        let word = |i: usize| rest.get(i..i + 4).map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let uuid: [u8; 16] = rest.get(16..32).and_then(|u| u.try_into().ok()).unwrap_or([0; 16]);
        let _ = header_names(rest, word(8), word(12), &uuid);
    } else {
        let k = key.as_bytes();
        check_all(
            &seal(SPIRV_MAGIC, k, rest),
            &seal(FLOAT_RECORD_MAGIC, k, rest),
            &seal(PIPELINE_CACHE_MAGIC, k, rest),
            key,
            float64,
        );
    }
});
