//! Tokens for the generated modules of `gen/src/generated/`.

use super::plan::{AccessorType, Bits, PiecePlan, Plan};
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
pub fn modules(plan: &Plan<'_>) -> Vec<(&'static str, TokenStream)> {
    vec![
        ("mod.rs", module_root()),
        ("classes.rs", classes(plan)),
        ("format.rs", format(plan)),
        ("operands.rs", operands(plan)),
    ]
}

fn module_root() -> TokenStream {
    quote! {
        //! The modules generated from `isa/sm86.txt`.
        pub mod classes;
        pub(crate) mod decode;
        pub(crate) mod format;
        mod data;
        pub mod operands;
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

fn bits_expr(bits: &Bits) -> TokenStream {
    // Most fields are one range: extract it inline.
    let parts: Vec<TokenStream> = {
        let mut shift = 0u32;
        bits.ranges
            .iter()
            .map(|&(lo, width)| {
                let lo = Literal::u32_unsuffixed(u32::from(lo));
                let w = Literal::u32_unsuffixed(u32::from(width));
                let t = if shift == 0 {
                    quote!(w.bits(#lo, #w))
                } else {
                    let s = Literal::u32_unsuffixed(shift);
                    quote!((w.bits(#lo, #w) << #s))
                };
                shift += u32::from(width);
                t
            })
            .collect()
    };
    quote!(( #( #parts )|* ))
}

fn bits_const(bits: &Bits) -> TokenStream {
    let ranges = bits.ranges.iter().map(|&(lo, w)| {
        let (lo, w) = (Literal::u8_unsuffixed(lo), Literal::u8_unsuffixed(w));
        quote!((#lo, #w))
    });
    let width = Literal::u8_unsuffixed(bits.width() as u8);
    quote!(Bits { ranges: &[ #( #ranges ),* ], width: #width })
}

fn format(plan: &Plan<'_>) -> TokenStream {
    let data = TableData::new(plan);
    let tables = plan.tables.iter().enumerate().map(|(i, t)| {
        let name = format_ident!("TABLE_{}", i);
        let ids = format_ident!("IDS_{}", i);
        let default = match &t.default {
            Some(d) => quote!(Some(#d)),
            None => quote!(None),
        };
        let keys = if data.dense[i] {
            quote!(None)
        } else {
            let k = format_ident!("KEYS_{}", i);
            quote!(Some(&data::#k))
        };
        quote!(static #name: Table = Table { keys: #keys, ids: &data::#ids, default: #default };)
    });
    let rules = plan.rules.iter().enumerate().map(|(i, r)| {
        let name = format_ident!("RULE_{}", i);
        let format = ident(&r.format);
        let (signed, shift, pc, prefix, suffix) = (r.signed, Literal::u8_unsuffixed(r.shift), r.pc_relative, &r.prefix, &r.suffix);
        let specials = r.specials.iter().map(|(v, s)| {
            let v = lit_u64(*v);
            quote!((#v, #s))
        });
        quote! {
            static #name: NumberRule = NumberRule {
                format: NumberFormat::#format, signed: #signed, shift: #shift, pc_relative: #pc,
                prefix: #prefix, suffix: #suffix, specials: &[ #( #specials ),* ],
            };
        }
    });
    let n = plan.classes.len();
    let templates = plan.classes.iter().map(|c| {
        let variants = c.variants.iter().map(|v| {
            let pieces = v.pieces.iter().map(|p| match p {
                PiecePlan::Text(t) => quote!(Piece::Text(#t)),
                PiecePlan::Table { bits, table } => {
                    let b = bits_const(bits);
                    let t = format_ident!("TABLE_{}", table);
                    quote!(Piece::Table(#b, &#t))
                }
                PiecePlan::Number { bits, rule } => {
                    let b = bits_const(bits);
                    let r = format_ident!("RULE_{}", rule);
                    quote!(Piece::Number(#b, &#r))
                }
            });
            quote!(&[ #( #pieces ),* ])
        });
        quote!(&[ #( #variants ),* ])
    });
    quote! {
        //! Print templates: for each class (in table order) its variants, each a list of pieces.
        #![allow(clippy::all)]

        use super::data;
        use crate::render::{Bits, NumberFormat, NumberRule, Piece, Pool, Table};

        /// Every text the tables print, in one string.
        pub(crate) static POOL: Pool = Pool { text: data::POOL_TEXT, ends: &data::POOL_ENDS };

        #( #tables )*
        #( #rules )*

        pub(crate) static TEMPLATES: [&[&[Piece]]; #n] = [ #( #templates ),* ];
    }
}

fn register_type(file: RegFile) -> TokenStream {
    match file {
        RegFile::Gpr => quote!(Reg),
        RegFile::Uniform => quote!(UReg),
        RegFile::Pred => quote!(Pred),
        RegFile::UniformPred => quote!(UPred),
        RegFile::Barrier => quote!(Barrier),
    }
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

fn operands(plan: &Plan<'_>) -> TokenStream {
    let enums = plan.enums.iter().map(|e| {
        let name = ident(&e.ident);
        let variant_idents: Vec<Ident> = e.variants.iter().map(|v| ident(&v.1)).collect();
        let values: Vec<TokenStream> = e.variants.iter().map(|v| lit_u64(v.0)).collect();
        let texts = e.variants.iter().map(|v| v.2.as_str());
        let doc = format!(
            " Modifier values: {}.",
            e.variants.iter().map(|v| format!("{} `{}`", v.0, if v.2.is_empty() { "(none)" } else { &v.2 })).collect::<Vec<_>>().join(", ")
        );
        quote! {
            #[doc = #doc]
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            pub enum #name { #( #variant_idents ),* }

            impl #name {
                /// The enum for a field value; `None` for values the table does not list.
                pub fn from_value(value: u64) -> Option<Self> {
                    match value { #( #values => Some(Self::#variant_idents), )* _ => None }
                }
                /// The field value.
                pub fn value(self) -> u64 {
                    match self { #( Self::#variant_idents => #values, )* }
                }
                /// What nvdisasm prints for it.
                pub fn text(self) -> &'static str {
                    match self { #( Self::#variant_idents => #texts, )* }
                }
            }
        }
    });
    let structs = plan.classes.iter().map(|c| {
        let name = ident(&c.class.name);
        let doc = format!(
            " A decoded `{}` word (class `{}`, opcode key {:#06x}).",
            if c.class.mnemonic.is_empty() { "(prints nothing)" } else { &c.class.mnemonic },
            c.class.name,
            c.class.opcode
        );
        let methods = c.fields.iter().map(|f| {
            let m = ident(&f.ident);
            let value = bits_expr(&f.bits);
            let bits_doc = f.bits.ranges.iter().rev().map(|&(lo, w)| {
                let hi = lo + w - 1;
                if w == 1 { format!("{lo}") } else { format!("{hi}:{lo}") }
            }).collect::<Vec<_>>().join(", ");
            let doc = format!(" Field `{}`, bits {bits_doc}.", f.name);
            let width = f.bits.width();
            let (ty, body) = match &f.accessor {
                AccessorType::Register(file) => {
                    let t = register_type(*file);
                    (quote!(#t), quote!(#t(#value as u8)))
                }
                AccessorType::NegatablePredicate(file) => {
                    let t = register_type(*file);
                    (quote!((#t, bool)), quote!({ let v = #value; (#t((v & 7) as u8), v & 8 != 0) }))
                }
                AccessorType::Signed { shift } => {
                    let s = Literal::u32_unsuffixed(64 - width);
                    let sh = Literal::u32_unsuffixed(u32::from(*shift));
                    if width >= 64 {
                        (quote!(i64), quote!((#value as i64) << #sh))
                    } else {
                        (quote!(i64), quote!((((#value as i64) << #s) >> #s) << #sh))
                    }
                }
                AccessorType::Unsigned { shift } => {
                    let sh = Literal::u32_unsuffixed(u32::from(*shift));
                    (quote!(u64), quote!(#value << #sh))
                }
                AccessorType::Displacement { shift, signed } => {
                    let sh = Literal::u32_unsuffixed(u32::from(*shift));
                    if *signed && width < 64 {
                        let s = Literal::u32_unsuffixed(64 - width);
                        (quote!(i64), quote!((((#value as i64) << #s) >> #s) << #sh))
                    } else {
                        (quote!(i64), quote!((#value as i64) << #sh))
                    }
                }
                AccessorType::Enum(e) => {
                    let t = ident(&plan.enums[*e].ident);
                    (quote!(Option<#t>), quote!(#t::from_value(#value)))
                }
                AccessorType::Raw => (quote!(u64), quote!(#value)),
            };
            let extra_doc = match &f.accessor {
                AccessorType::Displacement { .. } => " Bytes from the end of this instruction to the target.",
                AccessorType::Enum(_) => " `None` only for values the decoder refuses.",
                AccessorType::NegatablePredicate(_) => " The predicate and whether it is negated (`!P0`).",
                _ => "",
            };
            let alias = f.slot_alias.as_ref().map(|a| {
                let a = ident(a);
                let doc = format!(" The `{a}` operand slot: the same as [`Self::{}`].", f.ident);
                quote! {
                    #[doc = #doc]
                    #[inline]
                    pub fn #a(&self) -> #ty { self.#m() }
                }
            });
            quote! {
                #[doc = #doc]
                #[doc = #extra_doc]
                #[inline]
                pub fn #m(&self) -> #ty { let w = self.0; #body }
                #alias
            }
        });
        quote! {
            #[doc = #doc]
            #[allow(non_camel_case_types)]
            #[derive(Debug, Clone, Copy, PartialEq, Eq)]
            pub struct #name(pub Word);

            impl #name {
                #( #methods )*
            }
        }
    });
    let names: Vec<Ident> = plan.classes.iter().map(|c| ident(&c.class.name)).collect();
    let field_lists = plan.classes.iter().map(|c| {
        let items = c.fields.iter().map(|f| {
            let name = f.name.as_str();
            let b = bits_const(&f.bits);
            let k = kind_expr(f.kind);
            quote!(FieldInfo { name: #name, bits: #b, kind: #k })
        });
        quote!(&[ #( #items ),* ])
    });
    let n = plan.classes.len();
    quote! {
        //! Typed per-class views of a decoded word, modifier enums, and field descriptions.
        #![allow(clippy::all, unused_parens, unused_imports)]

        use super::classes::ClassId;
        use crate::operand::{Barrier, FieldInfo, FieldKind, Pred, Reg, RegFile, UPred, UReg};
        use crate::render::Bits;
        use crate::word::Word;

        #( #enums )*

        #( #structs )*

        /// A decoded instruction as its class's typed view: match on it and call the field accessors.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Op {
            #( #names(#names), )*
        }

        impl Op {
            /// The view of `word` as class `class` (the caller has decoded it as that class).
            pub fn new(class: ClassId, word: Word) -> Op {
                match class {
                    #( ClassId::#names => Op::#names(#names(word)), )*
                }
            }
        }

        /// Every class's fields, in table order.
        pub(crate) static FIELDS: [&[FieldInfo]; #n] = [ #( #field_lists ),* ];
    }
}

/// Table texts pooled and numbered, and each table's id (and key) arrays.
pub struct TableData {
    pool: Vec<String>,
    /// Per table: whether it is indexed directly by value (else by sorted keys).
    dense: Vec<bool>,
    ids: Vec<Vec<u32>>,
    keys: Vec<Vec<u64>>,
}

const MISSING: u32 = u32::MAX;

impl TableData {
    pub fn new(plan: &Plan<'_>) -> TableData {
        let mut pool: Vec<String> = Vec::new();
        let mut index: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut id_of = |text: &str| -> u32 {
            if let Some(&i) = index.get(text) {
                return i;
            }
            let i = pool.len() as u32;
            pool.push(text.to_owned());
            index.insert(text.to_owned(), i);
            i
        };
        let (mut dense_flags, mut all_ids, mut all_keys) = (Vec::new(), Vec::new(), Vec::new());
        for t in &plan.tables {
            let max = t.entries.iter().map(|e| e.0).max().unwrap_or(0);
            let dense = max < 1 << 16 && max < 2 * t.entries.len() as u64 + 16;
            if dense {
                let mut ids = vec![MISSING; max as usize + 1];
                for (v, text) in &t.entries {
                    ids[*v as usize] = id_of(text);
                }
                all_ids.push(ids);
                all_keys.push(Vec::new());
            } else {
                all_ids.push(t.entries.iter().map(|(_, text)| id_of(text)).collect());
                all_keys.push(t.entries.iter().map(|e| e.0).collect());
            }
            dense_flags.push(dense);
        }
        TableData { pool, dense: dense_flags, ids: all_ids, keys: all_keys }
    }

    /// The data module as text. It is laid out here rather than by prettyplease, which would put each of
    /// the hundreds of thousands of numbers on its own line.
    pub fn module_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        out.push_str("//! Formatter data: every table text in one pooled string, and each table's text ids.\n");
        out.push_str("#![allow(clippy::all)]\n\n");
        // The pool: one string literal, continued over lines with `\` (a continued line's leading blanks
        // are skipped, so a blank that starts a line is written as `\x20`).
        out.push_str("pub(crate) static POOL_TEXT: &str = \"\\\n");
        let mut line_len = 0;
        let mut ends = Vec::with_capacity(self.pool.len());
        let mut total = 0u32;
        for text in &self.pool {
            for c in text.chars() {
                let escaped = match c {
                    '\\' => "\\\\".to_owned(),
                    '"' => "\\\"".to_owned(),
                    ' ' if line_len == 0 => "\\x20".to_owned(),
                    c if c.is_ascii_graphic() || c == ' ' => c.to_string(),
                    c => format!("\\u{{{:x}}}", c as u32),
                };
                out.push_str(&escaped);
                line_len += escaped.len();
            }
            total += text.len() as u32;
            ends.push(total);
            if line_len >= 100 {
                out.push_str("\\\n");
                line_len = 0;
            }
        }
        out.push_str("\";\n\n");
        write_array(&mut out, "POOL_ENDS", "u32", &ends.iter().map(|e| e.to_string()).collect::<Vec<_>>());
        for (i, ids) in self.ids.iter().enumerate() {
            let items: Vec<String> = ids.iter().map(|&id| if id == MISSING { "NONE".to_owned() } else { id.to_string() }).collect();
            write_array(&mut out, &format!("IDS_{i}"), "u32", &items);
            if !self.dense[i] {
                let keys: Vec<String> = self.keys[i].iter().map(|k| k.to_string()).collect();
                write_array(&mut out, &format!("KEYS_{i}"), "u64", &keys);
            }
        }
        let _ = writeln!(out, "/// Marks a value with no entry.\nconst NONE: u32 = u32::MAX;");
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
