//! `docs/cuda-driver-coverage.md` lists the driver entry points the library implements, generated from its
//! table (`SASSPORT_BLESS=1 cargo test -p sassport-cuda --test coverage_doc` rewrites it); this test fails when
//! the page and the table disagree.

use std::fmt::Write;

fn page() -> String {
    let mut names: Vec<(&str, Vec<i32>)> = Vec::new();
    for (name, version) in cuda::proc::implemented() {
        match names.iter_mut().find(|(n, _)| *n == name) {
            Some((_, v)) => v.push(version),
            None => names.push((name, vec![version])),
        }
    }
    names.sort();
    let mut out = String::from(
        "# CUDA driver entry points sassport implements\n\n\
         Generated from `cuda/src/proc.rs` by `cuda/tests/coverage_doc.rs`; do not edit. Each name resolves through\n\
         `cuGetProcAddress` at the CUDA versions listed (the first version of each signature), for the default and\n\
         the per-thread default-stream variants alike. Every other name gets a stub that logs it once and returns\n\
         `CUDA_ERROR_NOT_SUPPORTED`; every other function `cuda.h` declares is also exported under its ABI name\n\
         (`cuda/src/unsupported.rs`) with the same behaviour, so that programs linked with `-lcuda` load.\n\n| entry point | versions |\n| --- | --- |\n",
    );
    for (name, versions) in &names {
        let v: Vec<String> = versions
            .iter()
            .map(|v| format!("{}.{}", v / 1000, (v % 1000) / 10))
            .collect();
        writeln!(out, "| `{name}` | {} |", v.join(", ")).unwrap();
    }
    writeln!(out, "\n{} entry points.", names.len()).unwrap();
    out
}

#[test]
fn coverage_page_matches_the_table() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/cuda-driver-coverage.md"
    );
    let want = page();
    if std::env::var_os("SASSPORT_BLESS").is_some() {
        std::fs::write(path, &want).expect("writing the coverage page");
    }
    let have = std::fs::read_to_string(path).unwrap_or_default();
    assert!(have == want, "docs/cuda-driver-coverage.md is stale: SASSPORT_BLESS=1 cargo test -p sassport-cuda --test coverage_doc");
}
