//! Tokens for the generated modules of `gen/src/generated/`.

use super::plan::{Bits, PiecePlan, Plan};
use anyhow::{bail, Result};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use sassport_isa::{FieldKind, RegFile};

fn hex(v: u128) -> TokenStream {
    let lit: Literal = format!("0x{v:x}").parse().expect("a hex literal parses");
    quote!(#lit)
}

fn lit_u64(v: u64) -> TokenStream {
    if v > 9 {
        hex(u128::from(v))
    } else {
        let lit = Literal::u64_unsuffixed(v);
        quote!(#lit)
    }
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

/// `(file name, tokens)` for every generated module.
pub fn modules(plan: &Plan<'_>, data: &TableData) -> Vec<(&'static str, TokenStream)> {
    vec![
        ("mod.rs", module_root()),
        ("classes.rs", classes(plan)),
        ("format.rs", format(plan, data)),
    ]
}

fn module_root() -> TokenStream {
    quote! {
        //! The modules generated from `isa/sm86.txt`.
        pub(crate) mod access;
        pub mod classes;
        pub(crate) mod decode;
        pub(crate) mod format;
        mod data;
        pub(crate) mod fields;
        pub mod views;
    }
}

fn classes(plan: &Plan<'_>) -> TokenStream {
    let n = plan.classes.len();
    let names: Vec<Ident> = plan.classes.iter().map(|c| ident(&c.class.name)).collect();
    let docs: Vec<String> = plan
        .classes
        .iter()
        .map(|c| {
            let example = c.class.golden.first().map(|g| format!(", e.g. `{}`", g.text.trim())).unwrap_or_default();
            format!(" `{}` (opcode key {:#06x}){example}", if c.class.mnemonic.is_empty() { "(prints nothing)" } else { &c.class.mnemonic }, c.class.opcode)
        })
        .collect();
    let indices = (0..n).map(|i| Literal::u16_unsuffixed(i as u16));
    let name_strs = plan.classes.iter().map(|c| c.class.name.as_str());
    let mnemonics = plan.classes.iter().map(|c| c.class.mnemonic.as_str());
    let opcodes = plan.classes.iter().map(|c| hex(u128::from(c.class.opcode)));
    let arch = &plan.table.arch;
    let version = &plan.table.nvdisasm;
    quote! {
        //! Instruction class ids and their names.

        /// The architecture the table describes.
        pub const ARCH: &str = #arch;
        /// The nvdisasm version the table was derived from; the formatter prints its `-raw` syntax.
        pub const NVDISASM_VERSION: &str = #version;
        /// Number of instruction classes.
        pub const CLASS_COUNT: usize = #n;

        /// One instruction class of the table: an opcode key plus fixed bits, with its own operand fields
        /// and print template.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(u16)]
        pub enum ClassId {
            #( #[doc = #docs] #names = #indices, )*
        }

        static NAMES: [&str; #n] = [ #( #name_strs ),* ];
        static MNEMONICS: [&str; #n] = [ #( #mnemonics ),* ];
        static OPCODES: [u16; #n] = [ #( #opcodes ),* ];

        impl ClassId {
            /// Every class, in table order.
            pub const ALL: [ClassId; #n] = [ #( ClassId::#names ),* ];

            /// The class's name in the table (`IMAD_0x624`).
            pub fn name(self) -> &'static str {
                NAMES[self as usize]
            }

            /// The mnemonic nvdisasm prints first, without modifiers; empty for classes that print nothing.
            pub fn mnemonic(self) -> &'static str {
                MNEMONICS[self as usize]
            }

            /// The 13-bit opcode key (word bit 91 as bit 12, then bits 11:0).
            pub fn opcode(self) -> u16 {
                OPCODES[self as usize]
            }

            /// Position in table order.
            pub fn index(self) -> usize {
                self as usize
            }

            /// The class at a table position.
            pub fn from_index(index: usize) -> Option<ClassId> {
                Self::ALL.get(index).copied()
            }

            /// The class with this table name.
            pub fn from_name(name: &str) -> Option<ClassId> {
                NAMES.iter().position(|n| *n == name).and_then(Self::from_index)
            }
        }
    }
}

fn bits_const(bits: &Bits) -> TokenStream {
    let ranges = bits.ranges.iter().map(|&(lo, w)| {
        let (lo, w) = (Literal::u8_unsuffixed(lo), Literal::u8_unsuffixed(w));
        quote!((#lo, #w))
    });
    let width = Literal::u8_unsuffixed(bits.width() as u8);
    quote!(Bits { ranges: &[ #( #ranges ),* ], width: #width })
}

fn format(plan: &Plan<'_>, data: &TableData) -> TokenStream {
    let span = |text: &str| {
        let lit: Literal = format!("{:#x}", data.span(text)).parse().expect("a hex literal parses");
        quote!(#lit)
    };
    let tables = plan.tables.iter().enumerate().map(|(i, t)| {
        let spans = format_ident!("SPANS_{}", i);
        let default = match &t.default {
            Some(d) => span(d),
            None => quote!(NO_TEXT),
        };
        let keys = if data.dense[i] {
            quote!(None)
        } else {
            let k = format_ident!("KEYS_{}", i);
            quote!(Some(&data::#k))
        };
        quote!(Table { keys: #keys, spans: &data::#spans, default: #default })
    });
    let n_tables = plan.tables.len();
    let rules = plan.rules.iter().map(|r| {
        let format = ident(&r.format);
        let (signed, shift, pc) = (r.signed, Literal::u8_unsuffixed(r.shift), r.pc_relative);
        let (prefix, suffix) = (span(&r.prefix), span(&r.suffix));
        let specials = r.specials.iter().map(|(v, s)| {
            let v = lit_u64(*v);
            let s = span(s);
            quote!((#v, #s))
        });
        quote! {
            NumberRule {
                format: NumberFormat::#format, signed: #signed, shift: #shift, pc_relative: #pc,
                prefix: #prefix, suffix: #suffix, specials: &[ #( #specials ),* ],
            }
        }
    });
    let n_rules = plan.rules.len();
    // Fields of one range are held in the piece; the others are listed once and named by index.
    let multi: Vec<&Bits> = {
        let mut seen = std::collections::BTreeSet::new();
        plan.classes
            .iter()
            .flat_map(|c| &c.variants)
            .flat_map(|v| &v.pieces)
            .filter_map(|p| match p {
                PiecePlan::Table { bits, .. } | PiecePlan::Number { bits, .. } if bits.ranges.len() > 1 => Some(bits),
                _ => None,
            })
            .filter(|b| seen.insert(*b))
            .collect()
    };
    let field = |bits: &Bits| match bits.ranges.as_slice() {
        [(lo, w)] => {
            let (lo, w) = (Literal::u8_unsuffixed(*lo), Literal::u8_unsuffixed(*w));
            quote!(Field::range(#lo, #w))
        }
        _ => {
            let i = multi.iter().position(|m| *m == bits).unwrap_or(0);
            let i = Literal::u16_unsuffixed(i as u16);
            quote!(Field::multi(#i))
        }
    };
    let fields = multi.iter().map(|b| bits_const(b));
    let n_fields = multi.len();
    let n = plan.classes.len();
    let templates = plan.classes.iter().map(|c| {
        let variants = c.variants.iter().map(|v| {
            let pieces = v.pieces.iter().flat_map(|p| match p {
                // A text too long for one span is several pieces.
                PiecePlan::Text(t) => text_chunks(t)
                    .into_iter()
                    .map(|t| {
                        let s = span(t);
                        quote!(Piece::text(#s))
                    })
                    .collect::<Vec<_>>(),
                PiecePlan::Table { bits, table } => {
                    let f = field(bits);
                    let t = Literal::u32_unsuffixed(*table as u32);
                    vec![quote!(Piece::table(#f, #t))]
                }
                PiecePlan::Number { bits, rule } => {
                    let f = field(bits);
                    let r = Literal::u32_unsuffixed(*rule as u32);
                    vec![quote!(Piece::number(#f, #r))]
                }
            });
            quote!(&[ #( #pieces ),* ])
        });
        quote!(&[ #( #variants ),* ])
    });
    quote! {
        //! Print templates: for each class (in table order) its variants, each a list of pieces. A piece is a
        //! text, given as a span of the pool (`data::POOL_TEXT`: byte offset in bits 31:8, length in bits
        //! 7:0), or a field printed through a table or number rule, given by index.
        #![allow(clippy::all)]

        use super::data;
        use crate::render::{Bits, Field, Format, NumberFormat, NumberRule, Piece, Table, NO_TEXT};

        /// The pool, fields, tables and rules the templates name.
        pub(crate) static FORMAT: Format = Format::new(data::POOL_TEXT, &FIELDS, &TABLES, &RULES);

        /// Fields of several bit ranges.
        static FIELDS: [Bits; #n_fields] = [ #( #fields ),* ];
        static TABLES: [Table; #n_tables] = [ #( #tables ),* ];
        static RULES: [NumberRule; #n_rules] = [ #( #rules ),* ];

        pub(crate) static TEMPLATES: [&[&[Piece]]; #n] = [ #( #templates ),* ];
    }
}

/// The longest text one span holds.
const SPAN_MAX_LEN: usize = 0xfe;
/// The pool may be at most this long (24-bit offsets).
const POOL_MAX_LEN: usize = 1 << 24;

/// `text` cut into pieces a span can hold, at character boundaries.
fn text_chunks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while rest.len() > SPAN_MAX_LEN {
        let mut cut = SPAN_MAX_LEN;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (head, tail) = rest.split_at(cut);
        out.push(head);
        rest = tail;
    }
    if !rest.is_empty() || out.is_empty() {
        out.push(rest);
    }
    out
}

fn kind_expr(kind: FieldKind) -> TokenStream {
    match kind {
        FieldKind::Register(file) => {
            let t = match file {
                RegFile::Gpr => quote!(Gpr),
                RegFile::Uniform => quote!(Uniform),
                RegFile::Pred => quote!(Pred),
                RegFile::UniformPred => quote!(UniformPred),
                RegFile::Barrier => quote!(Barrier),
            };
            quote!(FieldKind::Register(RegFile::#t))
        }
        FieldKind::Immediate => quote!(FieldKind::Immediate),
        FieldKind::ConstBank => quote!(FieldKind::ConstBank),
        FieldKind::ConstOffset => quote!(FieldKind::ConstOffset),
        FieldKind::BranchTarget => quote!(FieldKind::BranchTarget),
        FieldKind::Modifier => quote!(FieldKind::Modifier),
        FieldKind::Other => quote!(FieldKind::Other),
    }
}

/// The generated `fields.rs`: every class's field descriptions, one field a line (written as text: the
/// pretty-printer spread each over eight lines).
pub fn fields_text(plan: &Plan<'_>) -> String {
    let mut out = String::from("//! Every class's field descriptions (names, bits, kinds), in table order.\n");
    out.push_str("#![allow(clippy::all)]\nuse crate::operand::{FieldInfo, FieldKind, RegFile};\nuse crate::render::Bits;\n\n");
    out.push_str(&format!("/// Every class's fields, in table order.\npub(crate) static FIELDS: [&[FieldInfo]; {}] = [\n", plan.classes.len()));
    for c in &plan.classes {
        out.push_str(&format!("    // {}\n    &[\n", c.class.name));
        for f in &c.fields {
            let ranges: Vec<String> = f.bits.ranges.iter().map(|&(lo, w)| format!("({lo}, {w})")).collect();
            let kind = kind_expr(f.kind).to_string().replace(" :: ", "::").replace(" (", "(").replace("( ", "(").replace(" )", ")");
            out.push_str(&format!(
                "        FieldInfo {{ name: {:?}, bits: Bits {{ ranges: &[{}], width: {} }}, kind: {kind} }},\n",
                f.name,
                ranges.join(", "),
                f.bits.width()
            ));
        }
        out.push_str("    ],\n");
    }
    out.push_str("];\n");
    out
}

/// Every text the formatter prints, pooled into one string, and each table's span (and key) arrays.
pub struct TableData {
    pool: String,
    /// Text → its span in the pool.
    spans: std::collections::HashMap<String, u32>,
    /// Per table: whether it is indexed directly by value (else by sorted keys).
    dense: Vec<bool>,
    table_spans: Vec<Vec<u32>>,
    keys: Vec<Vec<u64>>,
}

/// The span array entry of a value without text.
const MISSING: u32 = u32::MAX;

impl TableData {
    /// Pools the texts in a fixed order, so that the output is a function of the table alone: number rules
    /// and template texts first, then table texts in table order. Texts printed for every instruction
    /// (registers, mnemonics, the guard, reuse and scheduling tables, which come first in the table) then
    /// sit together at the start of the pool, in few cache lines; the hundreds of kilobytes of rarely
    /// printed modifier combinations follow.
    pub fn new(plan: &Plan<'_>) -> Result<TableData> {
        let mut data = TableData {
            pool: String::new(),
            spans: std::collections::HashMap::new(),
            dense: Vec::new(),
            table_spans: Vec::new(),
            keys: Vec::new(),
        };
        for r in &plan.rules {
            data.intern(&r.prefix)?;
            data.intern(&r.suffix)?;
            for (_, text) in &r.specials {
                data.intern(text)?;
            }
        }
        for c in &plan.classes {
            for v in &c.variants {
                for p in &v.pieces {
                    if let PiecePlan::Text(t) = p {
                        for chunk in text_chunks(t) {
                            data.intern(chunk)?;
                        }
                    }
                }
            }
        }
        for t in &plan.tables {
            let max = t.entries.iter().map(|e| e.0).max().unwrap_or(0);
            let dense = max < 1 << 16 && max < 2 * t.entries.len() as u64 + 16;
            if dense {
                let mut spans = vec![MISSING; max as usize + 1];
                for (v, text) in &t.entries {
                    spans[*v as usize] = data.intern(text)?;
                }
                // Values without an entry hold the default, so that the formatter looks up once.
                if let Some(d) = &t.default {
                    let default = data.intern(d)?;
                    spans.iter_mut().filter(|s| **s == MISSING).for_each(|s| *s = default);
                }
                data.table_spans.push(spans);
                data.keys.push(Vec::new());
            } else {
                let spans = t.entries.iter().map(|(_, text)| data.intern(text)).collect::<Result<_>>()?;
                data.table_spans.push(spans);
                data.keys.push(t.entries.iter().map(|e| e.0).collect());
                if let Some(d) = &t.default {
                    data.intern(d)?;
                }
            }
            data.dense.push(dense);
        }
        Ok(data)
    }

    /// The span of `text`, adding it to the pool if it is new. Texts longer than a span holds are cut by
    /// [`text_chunks`] first; a table text that long, or a pool past 16 MiB, cannot be represented (the
    /// table has nothing near either).
    fn intern(&mut self, text: &str) -> Result<u32> {
        if let Some(&span) = self.spans.get(text) {
            return Ok(span);
        }
        if text.len() > SPAN_MAX_LEN {
            bail!("a render text of {} bytes does not fit the formatter's spans (at most {SPAN_MAX_LEN}): {text:?}", text.len());
        }
        // An empty text needs no bytes; any offset will do.
        let start = if text.is_empty() { 0 } else { self.pool.len() };
        if start + text.len() >= POOL_MAX_LEN {
            bail!("the formatter's text pool exceeds {POOL_MAX_LEN} bytes");
        }
        self.pool.push_str(text);
        let span = ((start as u32) << 8) | text.len() as u32;
        self.spans.insert(text.to_owned(), span);
        Ok(span)
    }

    /// The span of a text [`TableData::new`] pooled.
    fn span(&self, text: &str) -> u32 {
        match self.spans.get(text) {
            Some(&span) => span,
            None => panic!("text {text:?} was not pooled"),
        }
    }

    /// The data module as text. It is laid out here rather than by prettyplease, which would put each of
    /// the hundreds of thousands of numbers on its own line.
    pub fn module_text(&self) -> String {
        let mut out = String::new();
        out.push_str("//! Formatter data: every text the formatter prints in one pooled string, and each table's\n");
        out.push_str("//! texts as spans of it (byte offset in bits 31:8, length in bits 7:0).\n");
        out.push_str("#![allow(clippy::all)]\n\n");
        // The pool: one string literal, continued over lines with `\` (a continued line's leading blanks
        // are skipped, so a blank that starts a line is written as `\x20`).
        out.push_str("pub(crate) static POOL_TEXT: &str = \"\\\n");
        let mut line_len = 0;
        for c in self.pool.chars() {
            let escaped = match c {
                '\\' => "\\\\".to_owned(),
                '"' => "\\\"".to_owned(),
                ' ' if line_len == 0 => "\\x20".to_owned(),
                c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
                c => format!("\\u{{{:x}}}", c as u32),
            };
            out.push_str(&escaped);
            line_len += escaped.len();
            if line_len >= 100 {
                out.push_str("\\\n");
                line_len = 0;
            }
        }
        out.push_str("\";\n\n");
        for (i, spans) in self.table_spans.iter().enumerate() {
            let items: Vec<String> =
                spans.iter().map(|&s| if s == MISSING { "NONE".to_owned() } else { format!("{s:#x}") }).collect();
            write_array(&mut out, &format!("SPANS_{i}"), "u32", &items);
            if !self.dense[i] {
                let keys: Vec<String> = self.keys[i].iter().map(|k| k.to_string()).collect();
                write_array(&mut out, &format!("KEYS_{i}"), "u64", &keys);
            }
        }
        out.push_str("/// Marks a value with no entry.\nconst NONE: u32 = u32::MAX;\n");
        out
    }
}

pub fn write_array(out: &mut String, name: &str, ty: &str, items: &[String]) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "pub(crate) static {name}: [{ty}; {}] = [", items.len());
    for chunk in items.chunks(20) {
        let _ = writeln!(out, "    {},", chunk.join(", "));
    }
    out.push_str("];\n\n");
}
