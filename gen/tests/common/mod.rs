//! Test helpers shared by the integration tests.
#![allow(dead_code)]

pub mod listing;

use object::{Object, ObjectSection};
use std::collections::BTreeMap;

/// The `.text.*` sections of a cubin by name, read with the `object` crate (nothing under test).
pub fn text_sections(cubin: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let file = object::File::parse(cubin).expect("corpus cubin parses as ELF");
    file.sections()
        .filter_map(|s| {
            let name = s.name().ok()?.to_owned();
            name.starts_with(".text.").then(|| (name, s.data().map(<[u8]>::to_vec).unwrap_or_default()))
        })
        .collect()
}
