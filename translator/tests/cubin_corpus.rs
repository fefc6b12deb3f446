//! The cubin reader against `cuobjdump -elf` (the pinned 13.5.37) for every corpus cubin.
//!
//! The committed `corpus/sm86/<stem>.elf.txt` files are cuobjdump's view; this test parses that text on its
//! own (no code shared with the reader) and compares kernels, device functions, parameters, resources,
//! every `.nv.info` record's name and format, and relocations. Extra cubins with `.elf.txt` companions can
//! be checked too (an ignored test; see `extra_cubins_agree_with_cuobjdump`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sassport_translator::cubin::{AttributeFormat, Cubin};

/// The corpus covers many kernels; fewer cubins than this means it is missing, not that all is well.
const MIN_CORPUS_CUBINS: usize = 5;

#[test]
fn corpus_agrees_with_cuobjdump() {
    let cubins = sassport_corpus::cubins();
    assert!(
        cubins.len() >= MIN_CORPUS_CUBINS,
        "expected at least {MIN_CORPUS_CUBINS} cubins in {}, found {} (run `cargo xtask corpus`)",
        sassport_corpus::root().join("sm86").display(),
        cubins.len()
    );
    let mut kernels = 0;
    for cubin in &cubins {
        kernels += check(cubin, &sassport_corpus::companion(cubin, ".elf.txt"));
    }
    assert!(
        kernels >= cubins.len(),
        "only {kernels} kernels in {} cubins",
        cubins.len()
    );
}

/// Cubins from elsewhere (each with a `cuobjdump -elf` listing saved as `<stem>.elf.txt` beside it):
/// `SASSPORT_EXTRA_CUBINS=dir cargo test -p sassport-translator --test cubin_corpus -- --ignored`.
#[test]
#[ignore = "needs SASSPORT_EXTRA_CUBINS=<dir of .cubin + .elf.txt>"]
fn extra_cubins_agree_with_cuobjdump() {
    let dir =
        std::env::var_os("SASSPORT_EXTRA_CUBINS").expect("SASSPORT_EXTRA_CUBINS names a directory");
    let mut found = 0;
    for entry in std::fs::read_dir(dir).expect("SASSPORT_EXTRA_CUBINS is a directory") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "cubin") {
            check(&path, &path.with_extension("elf.txt"));
            found += 1;
        }
    }
    assert!(found > 0, "no cubins in SASSPORT_EXTRA_CUBINS");
}

/// Compares one cubin with its cuobjdump listing; returns the number of kernels checked.
fn check(cubin_path: &Path, listing_path: &PathBuf) -> usize {
    let bytes =
        std::fs::read(cubin_path).unwrap_or_else(|e| panic!("{}: {e}", cubin_path.display()));
    let text = std::fs::read_to_string(listing_path)
        .unwrap_or_else(|e| panic!("{}: {e}", listing_path.display()));
    let listing = Listing::parse(&text);
    let cubin = Cubin::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", cubin_path.display()));
    let at = cubin_path.display();

    assert_eq!(cubin.sm, listing.sm, "{at}: sm");
    assert_eq!(
        cubin.sections.len() - 1,
        listing.sections.len(),
        "{at}: section count"
    );
    for s in &listing.sections {
        let ours = &cubin.sections[s.index];
        assert_eq!(
            (ours.name, ours.size, ours.info),
            (s.name.as_str(), s.size, s.info),
            "{at}: section {}",
            s.index
        );
    }

    // Kernels and device functions, in symbol-table order.
    let entries: Vec<&Sym> = listing
        .symbols
        .iter()
        .filter(|s| s.kind == "FUNC" && s.other == "ENTRY")
        .collect();
    let ours: Vec<&str> = cubin.kernels.iter().map(|k| k.name()).collect();
    let theirs: Vec<&str> = entries.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(ours, theirs, "{at}: kernels");
    let functions: Vec<&Sym> = listing
        .symbols
        .iter()
        .filter(|s| s.kind == "FUNC" && s.other != "ENTRY" && s.section != 0)
        .collect();
    let ours: Vec<(&str, u64, u64)> = cubin
        .device_functions
        .iter()
        .map(|f| (f.name, f.offset, f.size))
        .collect();
    let theirs: Vec<(&str, u64, u64)> = functions
        .iter()
        .map(|s| (s.name.as_str(), s.value, s.size))
        .collect();
    assert_eq!(ours, theirs, "{at}: device functions (name, offset, size)");

    for (kernel, sym) in cubin.kernels.iter().zip(&entries) {
        let name = kernel.name();
        let at = format!("{at}: kernel {name}");
        assert_eq!(
            (kernel.function.offset, kernel.function.size),
            (sym.value, sym.size),
            "{at}: range"
        );
        let text_section = listing
            .section(&format!(".text.{name}"))
            .unwrap_or_else(|| panic!("{at}: no .text"));
        assert_eq!(
            kernel.function.section, text_section.index,
            "{at}: code section"
        );
        assert_eq!(
            kernel.code_registers,
            text_section.info >> 24,
            "{at}: code section registers"
        );
        assert_eq!(
            kernel.function.code.len() as u64,
            sym.size,
            "{at}: code bytes"
        );

        // Global .nv.info facts keyed by function name.
        let facts = listing.functions.get(name).cloned().unwrap_or_default();
        assert_eq!(
            kernel.function.resources.registers, facts.registers,
            "{at}: EIATTR_REGCOUNT"
        );
        assert_eq!(
            kernel.function.resources.frame_size, facts.frame_size,
            "{at}: EIATTR_FRAME_SIZE"
        );
        assert_eq!(
            kernel.function.resources.min_stack_size, facts.min_stack_size,
            "{at}: EIATTR_MIN_STACK_SIZE"
        );
        assert_eq!(
            kernel.function.resources.max_stack_size, facts.max_stack_size,
            "{at}: EIATTR_MAX_STACK_SIZE"
        );
        if let Some(registers) = facts.registers {
            assert_eq!(kernel.registers(), registers, "{at}: registers");
            assert_eq!(
                kernel.code_registers, registers,
                "{at}: sh_info and EIATTR_REGCOUNT agree"
            );
        }
        let smem = listing
            .smem
            .get(name)
            .copied()
            .unwrap_or_else(|| panic!("{at}: no smem line"));
        assert_eq!(
            kernel.shared_size, smem,
            "{at}: shared memory (cuobjdump smem=)"
        );
        let constant0 = listing
            .section(&format!(".nv.constant0.{name}"))
            .map(|s| s.size);
        assert_eq!(
            kernel.constant0.map(|c| c.len() as u64),
            constant0,
            "{at}: constant bank 0 size"
        );

        // Per-kernel .nv.info: every record's name and format, then the decoded values.
        let records = listing.kernel_info.get(name).cloned().unwrap_or_default();
        let ours: Vec<(String, &str)> = kernel
            .info
            .attributes
            .iter()
            .map(|a| {
                (
                    a.name().unwrap_or("unknown Attribute").to_owned(),
                    a.format.name(),
                )
            })
            .collect();
        let theirs: Vec<(String, &str)> = records
            .iter()
            .map(|r| (r.name.clone(), r.format.as_str()))
            .collect();
        assert_eq!(ours, theirs, "{at}: .nv.info.{name} records");

        let mut params: Vec<(u64, u64, u64)> = records
            .iter()
            .filter(|r| r.name == "EIATTR_KPARAM_INFO")
            .map(|r| r.kparam())
            .collect();
        params.sort();
        let ours: Vec<(u64, u64, u64)> = kernel
            .info
            .params
            .iter()
            .map(|p| (p.ordinal.into(), p.offset.into(), p.size.into()))
            .collect();
        assert_eq!(ours, params, "{at}: parameters (ordinal, offset, size)");
        for (i, p) in kernel.info.params.iter().enumerate() {
            assert_eq!(u64::from(p.ordinal), i as u64, "{at}: ordinals are dense");
            assert!(
                !p.in_shared_memory,
                "{at}: sm_86 parameters live in a constant bank"
            );
        }

        let value = |attr: &str| records.iter().find(|r| r.name == attr).map(|r| r.words());
        assert_eq!(
            kernel.info.param_size.map(u64::from),
            value("EIATTR_CBANK_PARAM_SIZE").map(|w| w[0]),
            "{at}: size"
        );
        let bank = value("EIATTR_PARAM_CBANK").map(|w| (w[0], w[1] & 0xffff, w[1] >> 16));
        let ours = kernel.info.param_bank.map(|b| {
            (
                u64::from(b.section_symbol),
                u64::from(b.offset),
                u64::from(b.size),
            )
        });
        assert_eq!(ours, bank, "{at}: EIATTR_PARAM_CBANK");
        assert_eq!(
            kernel.info.max_reg_count.map(u64::from),
            value("EIATTR_MAXREG_COUNT").map(|w| w[0]),
            "{at}"
        );
        assert_eq!(
            kernel.info.num_barriers.map(u64::from),
            value("EIATTR_NUM_BARRIERS").map(|w| w[0]),
            "{at}"
        );
        assert_eq!(
            kernel.info.crs_stack_size.map(u64::from),
            value("EIATTR_CRS_STACK_SIZE").map(|w| w[0]),
            "{at}"
        );
        let triple = |w: Vec<u64>| [w[0] as u32, w[1] as u32, w[2] as u32];
        assert_eq!(
            kernel.info.max_threads,
            value("EIATTR_MAX_THREADS").map(triple),
            "{at}: EIATTR_MAX_THREADS"
        );
        assert_eq!(
            kernel.info.required_threads,
            value("EIATTR_REQNTID").map(triple),
            "{at}: EIATTR_REQNTID"
        );
        let list = |attr: &str| -> Vec<u32> {
            records
                .iter()
                .filter(|r| r.name == attr)
                .flat_map(|r| r.words())
                .map(|w| w as u32)
                .collect()
        };
        assert_eq!(
            kernel.info.exit_offsets,
            list("EIATTR_EXIT_INSTR_OFFSETS"),
            "{at}: exits"
        );
        assert_eq!(
            kernel.info.s2r_ctaid_offsets,
            list("EIATTR_S2RCTAID_INSTR_OFFSETS"),
            "{at}: S2R CTAID"
        );
        assert_eq!(
            kernel.info.coop_group_offsets,
            list("EIATTR_COOP_GROUP_INSTR_OFFSETS"),
            "{at}"
        );
        assert_eq!(
            kernel.info.warp_wide_offsets,
            list("EIATTR_INT_WARP_WIDE_INSTR_OFFSETS"),
            "{at}"
        );
        assert_eq!(
            kernel.info.syscall_offsets,
            list("EIATTR_SYSCALL_OFFSETS"),
            "{at}"
        );
        assert_eq!(
            kernel.info.ctaid_z_used,
            value("EIATTR_CTAIDZ_USED").is_some(),
            "{at}: CTAIDZ_USED"
        );
        assert_eq!(
            kernel.info.wmma_used,
            value("EIATTR_WMMA_USED").is_some(),
            "{at}: WMMA_USED"
        );
        assert_eq!(
            kernel.info.coop_group_mask_regids,
            list("EIATTR_COOP_GROUP_MASK_REGIDS"),
            "{at}: mask regids"
        );
        let branches: Vec<(u32, Vec<u32>)> = kernel
            .info
            .indirect_branches
            .iter()
            .map(|b| (b.offset, b.targets.clone()))
            .collect();
        let theirs: Vec<(u32, Vec<u32>)> = records
            .iter()
            .filter(|r| r.name == "EIATTR_INDIRECT_BRANCH_TARGETS")
            .flat_map(|r| r.branches())
            .collect();
        assert_eq!(branches, theirs, "{at}: indirect branch targets");
        for exit in &kernel.info.exit_offsets {
            assert!(
                u64::from(*exit) < kernel.function.size,
                "{at}: exit {exit:#x} inside the kernel"
            );
        }
        for a in &kernel.info.attributes {
            if a.format == AttributeFormat::None {
                assert!(a.payload.is_empty());
            }
        }
    }

    // Device functions with their own .nv.info.<function> (-rdc cubins), and no .nv.info section unread.
    for f in &cubin.device_function_info {
        let records = listing
            .kernel_info
            .get(f.function)
            .unwrap_or_else(|| panic!("{at}: {} info", f.function));
        let ours: Vec<String> = f
            .info
            .attributes
            .iter()
            .map(|a| a.name().unwrap_or("unknown Attribute").to_owned())
            .collect();
        let theirs: Vec<String> = records.iter().map(|r| r.name.clone()).collect();
        assert_eq!(ours, theirs, "{at}: .nv.info.{} records", f.function);
    }
    let with_info = cubin
        .kernels
        .iter()
        .filter(|k| !k.info.attributes.is_empty())
        .count();
    assert_eq!(
        with_info + cubin.device_function_info.len(),
        listing.kernel_info.len(),
        "{at}: .nv.info.* sections"
    );

    // Constant banks: every .nv.constant<N>[.<function>] section, with its size.
    let theirs: Vec<(&str, u64)> = listing
        .sections
        .iter()
        .filter(|s| s.name.starts_with(".nv.constant"))
        .map(|s| (s.name.as_str(), s.size))
        .collect();
    let ours: Vec<(&str, u64)> = cubin
        .constant_banks
        .iter()
        .map(|b| (b.name, b.data.len() as u64))
        .collect();
    assert_eq!(ours, theirs, "{at}: constant banks");

    // Device-function resources from the global .nv.info.
    for f in &cubin.device_functions {
        let facts = listing.functions.get(f.name).cloned().unwrap_or_default();
        assert_eq!(
            f.resources.registers, facts.registers,
            "{at}: {} registers",
            f.name
        );
        assert_eq!(
            f.resources.frame_size, facts.frame_size,
            "{at}: {} frame size",
            f.name
        );
    }

    // Relocations, section by section, entries in file order.
    let ours: Relocations = cubin
        .relocation_sections
        .iter()
        .map(|r| {
            let entries = r
                .entries
                .iter()
                .map(|e| {
                    (
                        e.offset,
                        e.symbol_name.to_owned(),
                        e.kind.to_string(),
                        e.addend,
                    )
                })
                .collect();
            (r.name.to_owned(), entries)
        })
        .collect();
    assert_eq!(ours, listing.relocations, "{at}: relocations");
    for code in &cubin.code_sections {
        let expected: usize = cubin
            .relocation_sections
            .iter()
            .filter(|r| r.target == code.index)
            .map(|r| r.entries.len())
            .sum();
        assert_eq!(
            code.relocations.len(),
            expected,
            "{at}: relocations of {}",
            code.name
        );
    }
    cubin.kernels.len()
}

// ---- an independent reading of `cuobjdump -elf` text ----

/// Relocation section name -> (offset, symbol, type name, addend) in file order.
type Relocations = BTreeMap<String, Vec<(u64, String, String, Option<i64>)>>;

#[derive(Debug, Default)]
struct Listing {
    sm: u32,
    sections: Vec<SectionRow>,
    symbols: Vec<Sym>,
    functions: BTreeMap<String, Facts>,
    kernel_info: BTreeMap<String, Vec<Record>>,
    smem: BTreeMap<String, u64>,
    relocations: Relocations,
}

#[derive(Debug)]
struct SectionRow {
    index: usize,
    size: u64,
    info: u32,
    name: String,
}

#[derive(Debug)]
struct Sym {
    num: usize,
    value: u64,
    size: u64,
    kind: String,
    other: String,
    section: usize,
    name: String,
}

#[derive(Debug, Default, Clone)]
struct Facts {
    registers: Option<u32>,
    frame_size: Option<u32>,
    min_stack_size: Option<u32>,
    max_stack_size: Option<u32>,
}

#[derive(Debug, Clone)]
struct Record {
    name: String,
    format: String,
    value: String,
}

fn hex(s: &str) -> u64 {
    let s = s.trim();
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("not hex: {s:?}"))
}

impl Record {
    /// All `0x...` numbers in the value text.
    fn words(&self) -> Vec<u64> {
        self.value
            .split_whitespace()
            .filter(|t| t.starts_with("0x"))
            .map(hex)
            .collect()
    }

    fn field(&self, label: &str) -> u64 {
        let rest = &self.value[self
            .value
            .find(label)
            .unwrap_or_else(|| panic!("{label} in {:?}", self.value))..];
        let rest = rest[label.len()..].trim_start_matches([' ', ':']);
        hex(rest.split_whitespace().next().unwrap_or(""))
    }

    fn kparam(&self) -> (u64, u64, u64) {
        (
            self.field("Ordinal"),
            self.field("Offset"),
            self.field("Size"),
        )
    }

    fn branches(&self) -> Vec<(u32, Vec<u32>)> {
        let mut out = Vec::new();
        let mut lines = self.value.lines();
        while let Some(line) = lines.next() {
            if line.contains("Offset of Indirect Branch") {
                let record = Record {
                    name: String::new(),
                    format: String::new(),
                    value: line.to_owned(),
                };
                let offset = record.field("Offset of Indirect Branch") as u32;
                let count = record.field("Number of targets") as usize;
                let targets: Vec<u32> = lines
                    .next()
                    .unwrap_or("")
                    .split_whitespace()
                    .filter(|t| t.starts_with("0x"))
                    .map(|t| hex(t) as u32)
                    .collect();
                assert_eq!(targets.len(), count);
                out.push((offset, targets));
            }
        }
        out
    }
}

impl Listing {
    fn section(&self, name: &str) -> Option<&SectionRow> {
        self.sections.iter().find(|s| s.name == name)
    }

    fn parse(text: &str) -> Listing {
        let mut listing = Listing::default();
        let lines: Vec<&str> = text.lines().collect();
        let header = lines
            .iter()
            .find(|l| l.contains("64-bit ELF"))
            .expect("ELF header line");
        let sm = header
            .split(", ")
            .find_map(|f| f.strip_prefix("sm="))
            .expect("sm=");
        listing.sm = sm.trim().parse().expect("sm number");

        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if line.starts_with("Index Offset") {
                i += 1;
                while i < lines.len() && !lines[i].trim().is_empty() {
                    let cols: Vec<&str> = lines[i].split_whitespace().collect();
                    listing.sections.push(SectionRow {
                        index: hex(cols[0]) as usize,
                        size: hex(cols[2]),
                        // Counted from the right: a type column may have a space ("UNKNOWN: 133").
                        info: hex(cols[cols.len() - 2]) as u32,
                        name: cols[cols.len() - 1].to_string(),
                    });
                    i += 1;
                }
                continue;
            }
            if line.trim_start().starts_with("Num ") && line.contains("Other") {
                i += 1;
                while i < lines.len() && !lines[i].trim().is_empty() {
                    let cols: Vec<&str> = lines[i].split_whitespace().collect();
                    listing.symbols.push(Sym {
                        num: hex(cols[0]) as usize,
                        value: hex(cols[1]),
                        size: hex(cols[2]),
                        kind: cols[3].to_owned(),
                        other: cols[6].to_owned(),
                        section: hex(cols[7]) as usize,
                        name: cols.get(8).unwrap_or(&"").to_string(),
                    });
                    i += 1;
                }
                continue;
            }
            if let Some(rest) = line.strip_prefix(".nv.info") {
                let (records, next) = parse_records(&lines, i + 1);
                if rest.is_empty() {
                    for r in &records {
                        // Most records print "function: name(0xN)"; EIATTR_MAX_STACK_SIZE prints "0xN value".
                        let function = match r
                            .value
                            .split("function: ")
                            .nth(1)
                            .and_then(|s| s.split('(').next())
                        {
                            Some(name) => name.to_owned(),
                            None if r.name == "EIATTR_MAX_STACK_SIZE" => {
                                let index = r.words()[0] as usize;
                                listing
                                    .symbols
                                    .iter()
                                    .find(|s| s.num == index)
                                    .expect("symbol")
                                    .name
                                    .clone()
                            }
                            None => continue,
                        };
                        let number = |label: &str| -> u32 {
                            let text = r.value.split(label).nth(1).expect(label).trim();
                            let text = text.split_whitespace().next().unwrap_or("");
                            if let Some(h) = text.strip_prefix("0x") {
                                u32::from_str_radix(h, 16).expect("hex")
                            } else {
                                text.parse().expect("decimal")
                            }
                        };
                        let facts = listing.functions.entry(function).or_default();
                        match r.name.as_str() {
                            "EIATTR_REGCOUNT" => facts.registers = Some(number("register count:")),
                            "EIATTR_FRAME_SIZE" => facts.frame_size = Some(number("frame size:")),
                            "EIATTR_MIN_STACK_SIZE" => {
                                facts.min_stack_size = Some(number("min stack size:"))
                            }
                            "EIATTR_MAX_STACK_SIZE" => {
                                facts.max_stack_size = Some(r.words()[1] as u32)
                            }
                            _ => {}
                        }
                    }
                } else if let Some(kernel) = rest.strip_prefix('.') {
                    listing.kernel_info.insert(kernel.to_owned(), records);
                }
                i = next;
                continue;
            }
            if let Some(name) = line.strip_prefix(".text.") {
                if let Some(next) = lines.get(i + 1) {
                    if let Some(smem) = next
                        .split_whitespace()
                        .find_map(|f| f.strip_prefix("smem="))
                    {
                        listing
                            .smem
                            .insert(name.to_owned(), smem.parse().expect("smem decimal"));
                    }
                }
            }
            if let Some(rest) = line.strip_prefix(".section .rel") {
                let (name, kind) = rest.split_once('\t').expect("relocation section header");
                let rela = kind.trim() == "RELA";
                let mut entries = Vec::new();
                i += 1;
                while i < lines.len() && lines[i].starts_with("0x") {
                    let cols: Vec<&str> = lines[i].split_whitespace().collect();
                    let addend = rela.then(|| hex(cols[3]) as i64);
                    entries.push((hex(cols[0]), cols[1].to_owned(), cols[2].to_owned(), addend));
                    i += 1;
                }
                listing.relocations.insert(format!(".rel{name}"), entries);
                continue;
            }
            i += 1;
        }
        listing
    }
}

/// Reads `\t<0xN>` / `\tAttribute:` / `\tFormat:` / `\tValue:` blocks starting at line `i`.
fn parse_records(lines: &[&str], mut i: usize) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("\t<0x") {
            i += 1;
            continue;
        }
        let Some(name) = line.strip_prefix("\tAttribute:\t") else {
            break;
        };
        let format = lines
            .get(i + 1)
            .and_then(|l| l.strip_prefix("\tFormat:\t"))
            .expect("Format line");
        i += 2;
        let mut value = String::new();
        if let Some(v) = lines.get(i).and_then(|l| l.strip_prefix("\tValue:\t")) {
            value.push_str(v);
            i += 1;
            // Continuation lines are indented (mbarrier and branch tables) or blank (LANGUAGE prints an
            // empty line before the next record).
            while i < lines.len()
                && !lines[i].starts_with("\t<0x")
                && !lines[i].starts_with("\tAttribute:")
                && (lines[i].starts_with('\t') || (lines[i].is_empty() && next_is_record(lines, i)))
            {
                value.push('\n');
                value.push_str(lines[i]);
                i += 1;
            }
        }
        records.push(Record {
            name: name.trim().to_owned(),
            format: format.trim().to_owned(),
            value,
        });
    }
    (records, i)
}

fn next_is_record(lines: &[&str], i: usize) -> bool {
    lines
        .get(i + 1)
        .is_some_and(|l| l.starts_with("\t<0x") || l.starts_with("\t\t"))
}

/// Users hand in slices from anywhere (mmaps, archive members): where the bytes start must not matter.
/// (sm_90+ cubins even put the program header table at a 4-byte offset.)
#[test]
fn corpus_parses_at_any_alignment() {
    let cubins = sassport_corpus::cubins();
    assert!(cubins.len() >= MIN_CORPUS_CUBINS);
    for path in &cubins {
        let bytes = std::fs::read(path).expect("readable corpus cubin");
        let aligned = Cubin::parse(&bytes).expect("corpus cubins parse");
        for shift in 1..8 {
            let mut shifted = vec![0u8; shift];
            shifted.extend_from_slice(&bytes);
            let cubin = Cubin::parse(&shifted[shift..])
                .unwrap_or_else(|e| panic!("{} at +{shift}: {e}", path.display()));
            assert_eq!(cubin, aligned, "{} at +{shift}", path.display());
        }
    }
}
