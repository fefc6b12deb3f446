//! No new import circles between the translator's modules: two modules (files) that refer to each other
//! through `crate::` or `super::` paths in code (comments left out; a module and its own submodules do
//! not count) form a pair. The pairs still left are listed here and may only go away (the crate doc's
//! "Layering" says which way dependencies point).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Mutual pairs not broken yet (sorted, `a <-> b` with a < b).
const KNOWN_PAIRS: &[&str] = &[
    "control::guard <-> lower",
    "lower::fp16 <-> lower::soft_f16",
    "lower::generic_atomic <-> lower::memory",
    "lower::memory <-> lower::memory_order",
    "lower::memory <-> lower::soft_atomic64",
    "lower::memory <-> lower::warp",
    "lower::subgroup <-> lower::warp",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("source directory readable")
        .flatten()
    {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `lower/memory.rs` → `lower::memory`, `lower/mod.rs` → `lower`, `lib.rs` → ``.
fn module_of(root: &Path, file: &Path) -> String {
    let rel = file
        .strip_prefix(root)
        .expect("under src")
        .with_extension("");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts.join("::")
}

/// The `::`-separated path after each occurrence of `prefix` in `code`.
fn paths_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(prefix) {
        let tail = &rest[at + prefix.len()..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(tail.len());
        out.push(&tail[..end]);
        rest = tail;
    }
    out
}

/// The longest module that `path` (relative to `base`) starts with.
fn resolve(modules: &BTreeSet<String>, base: &str, path: &str) -> Option<String> {
    let full: Vec<&str> = base
        .split("::")
        .filter(|p| !p.is_empty())
        .chain(path.split("::").filter(|p| !p.is_empty()))
        .collect();
    (1..=full.len())
        .rev()
        .map(|n| full[..n].join("::"))
        .find(|m| modules.contains(m))
}

fn related(a: &str, b: &str) -> bool {
    a == b || a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::"))
}

fn mutual_pairs() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut code: BTreeMap<String, String> = BTreeMap::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("source readable");
        let stripped: Vec<&str> = text
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect();
        code.insert(module_of(&root, f), stripped.join("\n"));
    }
    let modules: BTreeSet<String> = code.keys().cloned().collect();
    let mut edges: BTreeSet<(String, String)> = BTreeSet::new();
    for (m, text) in &code {
        let parent = m.rsplit_once("::").map_or("", |p| p.0);
        let targets = paths_after(text, "crate::")
            .into_iter()
            .filter_map(|p| resolve(&modules, "", p))
            .chain(
                paths_after(text, "super::")
                    .into_iter()
                    .filter_map(|p| resolve(&modules, parent, p)),
            );
        for t in targets {
            if !related(m, &t) {
                edges.insert((m.clone(), t));
            }
        }
    }
    edges
        .iter()
        .filter(|(a, b)| a < b && edges.contains(&(b.clone(), a.clone())))
        .map(|(a, b)| format!("{a} <-> {b}"))
        .collect()
}

#[test]
fn no_new_mutual_imports_between_modules() {
    let pairs = mutual_pairs();
    let known: BTreeSet<String> = KNOWN_PAIRS.iter().map(|s| (*s).to_owned()).collect();
    let new: Vec<&String> = pairs.difference(&known).collect();
    assert!(
        new.is_empty(),
        "modules that import each other (break the circle, see the crate doc's layering): {new:?}"
    );
    let gone: Vec<&String> = known.difference(&pairs).collect();
    assert!(
        gone.is_empty(),
        "pairs no longer mutual: remove them from KNOWN_PAIRS: {gone:?}"
    );
}
