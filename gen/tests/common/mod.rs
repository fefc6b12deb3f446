//! Test helpers shared by the integration tests.
#![allow(dead_code)]

pub mod listing;
pub mod operands;

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

fn file_of(f: sassport_gen::RegFile) -> sassport_isa::RegFile {
    use sassport_gen::RegFile::*;
    match f {
        Gpr => sassport_isa::RegFile::Gpr,
        Uniform => sassport_isa::RegFile::Uniform,
        Pred => sassport_isa::RegFile::Pred,
        UniformPred => sassport_isa::RegFile::UniformPred,
        Barrier => sassport_isa::RegFile::Barrier,
    }
}

fn direction_of(d: sassport_gen::Direction) -> sassport_isa::Direction {
    use sassport_gen::Direction::*;
    match d {
        Read => sassport_isa::Direction::Read,
        Write => sassport_isa::Direction::Write,
        ReadWrite => sassport_isa::Direction::ReadWrite,
    }
}

/// The generated decoder's accesses of `w` in the table interpreter's terms (`None`: undecodable, or
/// accesses unknown).
pub fn generated_accesses(w: u128) -> Option<Vec<sassport_isa::RegisterAccess>> {
    let inst = sassport_gen::decode(sassport_gen::Word(w)).ok()?;
    Some(
        inst.accesses()?
            .map(|a| sassport_isa::RegisterAccess {
                file: file_of(a.file),
                first: a.first,
                width: a.count,
                direction: direction_of(a.direction),
            })
            .collect(),
    )
}
