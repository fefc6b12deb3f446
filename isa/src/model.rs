//! The typed model of the SM86 encoding table.
//!
//! One [`Table`] holds every instruction class nvdisasm decodes. A class is identified by its 13-bit opcode
//! key plus fixed bits; its operands are named bit fields; its text is a print template made of literal text
//! and field renderings. Everything a decoder and an nvdisasm-exact formatter need is here, and nothing else:
//!
//! * **Decode** a 128-bit little-endian word `w` (bit *i* of the word is bit *i* of the `u128`):
//!   1. `key = ((w >> 91) & 1) << 12 | (w & 0xfff)`; candidate classes are those with `opcode == key`, tried
//!      in table order (the probe sorts them most-specific first, i.e. by descending popcount of
//!      `fixed.mask`).
//!   2. A class matches when `w & fixed.mask == fixed.value`. Inside a class, the first [`Variant`] whose
//!      `when` matches is the one that prints (the last variant of a class always has an empty `when`
//!      mask, so one always matches).
//!   3. The word is legal only if every [`Render::Table`] piece of the chosen variant has an entry (or a
//!      default) for its field's value, and no [`Render::Number`] piece maps the value to
//!      [`Special::Illegal`]. Otherwise
//!      nvdisasm refuses the word and so must we (a typed error).
//! * **Print**: concatenate the variant's [`Piece`]s in order. [`Piece::Text`] prints verbatim;
//!   [`Piece::Field`] prints the field's value through its [`Render`]. The template already contains
//!   everything: the guard predicate (`@P0 `, `@!P0 `, or nothing for `PT`), the mnemonic, every `.MOD`
//!   modifier (a modifier whose value is the default prints `""`), operand separators `, `, prefixes such
//!   as `-`, `!`, `~`, `|...|`, suffixes such as `.reuse`, `.64`, `.H1`, brackets of memory and constant
//!   operands (`[R2.64+0x10]`, `c[0x0][0x160]`, `desc[UR4][R2.64]`), and the closing `;`. (nvdisasm
//!   prints ` ;` with a space when any of the scheduling bits 103:102, 108:105, 121:116 is set and `;`
//!   otherwise; the probe records that as a field `sched` rendered `table 0:"" *:" "` before the `;`.) Optional
//!   operands that nvdisasm omits (with their comma) are tables whose entry text includes the separator,
//!   e.g. `0:"P0, " ... 7:""`. The formatter never adds spaces or punctuation of its own.
//!
//! Field values: a [`Field`]'s bits are its [`BitRange`]s concatenated, the **first range least
//! significant**. Values are at most 64 bits wide.
//!
//! Printed text is nvdisasm 13.5.37 `-raw` text *at a given address*: branch targets are absolute, computed
//! from the instruction's address (see [`NumberRule::pc_relative`]). Golden pairs therefore record the
//! address they were printed at.
//!
//! Names of classes and fields are our own (mnemonic plus opcode form); nothing here is NVIDIA's internal
//! instruction description text. Mnemonics and modifiers are what nvdisasm prints.

use std::fmt;

/// The whole table: header plus classes in decode-priority order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Table {
    /// Architecture the table describes, e.g. `SM86`.
    pub arch: String,
    /// Version of the nvdisasm the table was derived from, e.g. `13.5.37`.
    pub nvdisasm: String,
    /// All classes. Classes sharing an opcode appear in the order they must be tried.
    pub classes: Vec<Class>,
}

/// One instruction class: one opcode key plus fixed bits, one set of operand fields, one or more print
/// variants.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Class {
    /// Our unique identifier, e.g. `IMAD_0x624`, `LDG_0x1981`. Stable across regenerations; used for
    /// generated type and accessor names. ASCII letters, digits and `_` only, starting with a letter.
    pub name: String,
    /// The mnemonic nvdisasm prints first (without modifiers), e.g. `IMAD`. Empty for the classes that
    /// decode but print an empty line.
    pub mnemonic: String,
    /// The 13-bit opcode key: bit 12 is word bit 91, bits 11:0 are word bits 11:0.
    pub opcode: u16,
    /// Bits that must hold for the word to belong to this class. Always includes the 13 opcode bits.
    pub fixed: Pattern,
    /// The operand and modifier fields. Fields may share bits (e.g. a legality-only field over the
    /// scheduling/opex bits 109:105,124:122 overlaps the `sched` field); each piece reads its field
    /// independently. Bits in no field and not in `fixed` do not affect the printed text or legality.
    pub fields: Vec<Field>,
    /// Print variants, tried in order; see the module doc. At least one; the last has `when.mask == 0`.
    pub variants: Vec<Variant>,
    /// The registers the class's words read and write, as `nvdisasm -plr` reports them.
    pub accesses: Accesses,
    /// Verified (address, word, nvdisasm text) triples covering the class's fields.
    pub golden: Vec<Golden>,
    /// Verified register listings (`nvdisasm -plr`), one per golden word that prints a line.
    pub uses: Vec<UsesGolden>,
}

/// A mask/value pair over the 128-bit word: `w & mask == value` (and `value & !mask == 0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pattern {
    pub mask: u128,
    pub value: u128,
}

impl Pattern {
    /// The pattern that matches every word.
    pub const ANY: Pattern = Pattern { mask: 0, value: 0 };

    /// Whether `word` matches.
    pub fn matches(&self, word: u128) -> bool {
        word & self.mask == self.value
    }
}

/// An inclusive range of word bits, `hi:lo` (`lo <= hi <= 127`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BitRange {
    pub lo: u8,
    pub hi: u8,
}

impl BitRange {
    /// Number of bits in the range.
    pub fn width(&self) -> u32 {
        u32::from(self.hi - self.lo) + 1
    }

    /// The range's bits of `word`, right-aligned.
    pub fn extract(&self, word: u128) -> u64 {
        let w = self.width();
        let m: u128 = if w >= 128 { u128::MAX } else { (1u128 << w) - 1 };
        ((word >> self.lo) & m) as u64
    }

    /// The range as a mask over the word.
    pub fn mask(&self) -> u128 {
        let w = self.width();
        let m: u128 = if w >= 128 { u128::MAX } else { (1u128 << w) - 1 };
        m << self.lo
    }
}

/// A named operand or modifier field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Unique within the class; ASCII letters, digits and `_`, starting with a letter (e.g. `rd`, `ra`,
    /// `pg`, `imm`, `cbank`, `coff`, `m0`).
    pub name: String,
    /// The field's bits: ranges concatenated, first range least significant. Total width <= 64.
    pub bits: Vec<BitRange>,
    /// What the field is, for consumers other than the formatter (the translator). The formatter ignores
    /// it and prints through the [`Render`] of each piece that names the field.
    pub kind: FieldKind,
}

impl Field {
    /// Total width in bits.
    pub fn width(&self) -> u32 {
        self.bits.iter().map(BitRange::width).sum()
    }

    /// The field's value in `word` (ranges concatenated, first least significant).
    pub fn extract(&self, word: u128) -> u64 {
        let mut v = 0u64;
        let mut shift = 0u32;
        for r in &self.bits {
            v |= r.extract(word) << shift;
            shift += r.width();
        }
        v
    }

    /// Writes `value` into the field's bits of `word` (bits of `value` beyond the width are ignored).
    pub fn insert(&self, word: u128, value: u64) -> u128 {
        let mut w = word;
        let mut shift = 0u32;
        for r in &self.bits {
            let part = (u128::from(value) >> shift) << r.lo;
            w = (w & !r.mask()) | (part & r.mask());
            shift += r.width();
        }
        w
    }

    /// The field's bits as a mask over the word.
    pub fn mask(&self) -> u128 {
        self.bits.iter().fold(0, |m, r| m | r.mask())
    }
}

/// Semantic kind of a field (what the translator reads it as). Derived by the probe from how the field
/// prints; humans may refine it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldKind {
    /// Register number in a register file; `RZ`/`URZ`/`PT`/`UPT` is the all-ones value.
    Register(RegFile),
    /// Integer or floating-point immediate (see the field's renders for signedness and format).
    Immediate,
    /// Constant bank index, the `B` in `c[B][O]`.
    ConstBank,
    /// Constant byte offset, the `O` in `c[B][O]`.
    ConstOffset,
    /// PC-relative branch or call target (see [`NumberRule::pc_relative`]).
    BranchTarget,
    /// Modifier or flag: printed through tables (including `.reuse`, negation, absolute value, guards).
    Modifier,
    /// The probe could not say more.
    Other,
}

/// Register files that fields index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegFile {
    /// `R0`..`R254`, `RZ` = 255.
    Gpr,
    /// `UR0`..`UR62`, `URZ` = 63.
    Uniform,
    /// `P0`..`P6`, `PT` = 7.
    Pred,
    /// `UP0`..`UP6`, `UPT` = 7.
    UniformPred,
    /// Convergence barrier registers `B0`..`B15`.
    Barrier,
}

/// One way of printing a class; see the module doc for how a variant is chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Extra condition on top of the class's `fixed` bits (usually [`Pattern::ANY`]). Used where one
    /// field changes the layout of the whole text (e.g. an operand type switching an immediate from
    /// integer to float printing).
    pub when: Pattern,
    /// The print template.
    pub pieces: Vec<Piece>,
}

/// Part of a print template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// Printed verbatim.
    Text(String),
    /// The value of field `field` printed through `render`. A field may appear in several pieces with
    /// different renders (e.g. `|` before and after a register for absolute value).
    Field { field: String, render: Render },
}

/// How a field value becomes text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Render {
    /// Value → text. `entries` are sorted by value; text may be empty (defaults print nothing) and may
    /// contain separators (optional operands). A value with no entry prints `default`, or, when `default`
    /// is `None`, makes the word illegal (nvdisasm rejects it). Note nvdisasm prints some out-of-range
    /// enum values as `INVALIDn` text rather than rejecting the word; those appear here as ordinary
    /// entries.
    Table { entries: Vec<(u64, String)>, default: Option<String> },
    /// A number printed by rule: `prefix + format(value) + suffix`, except for the listed values, whose
    /// entries take precedence (sorted by value).
    Number { rule: NumberRule, specials: Vec<(u64, Special)> },
}

/// An exception in a [`Render::Number`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Special {
    /// This value prints as this text (instead of prefix/number/suffix), e.g. `255` → `RZ`.
    Text(String),
    /// This value makes the word illegal.
    Illegal,
}

/// How a [`Render::Number`] computes and prints its number from the raw field value `v` of width `w`.
///
/// 1. `n = v` as an integer; if `signed`, sign-extend from bit `w-1`.
/// 2. `n = n << shift` (the field stores the value scaled down, e.g. word offsets).
/// 3. If `pc_relative`: `n = address + 16 + n`, wrapping modulo 2^64 (`address` is the instruction's
///    address; nvdisasm `-raw` prints the absolute target; `sassport dis` prints it section-relative as
///    `` `(0xTARGET) ``, that substitution is the formatter's business).
/// 4. Print `prefix`, then `n` in `format`, then `suffix`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NumberRule {
    pub format: NumberFormat,
    pub signed: bool,
    pub shift: u8,
    pub pc_relative: bool,
    pub prefix: String,
    pub suffix: String,
}

impl NumberRule {
    /// A plain rule with the given format and no scaling, sign or affixes.
    pub fn plain(format: NumberFormat) -> NumberRule {
        NumberRule { format, signed: false, shift: 0, pc_relative: false, prefix: String::new(), suffix: String::new() }
    }
}

/// Number formats nvdisasm uses. `n` is the number after [`NumberRule`] steps 1-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumberFormat {
    /// Decimal, `-` for negatives: `R12`'s `12`.
    Dec,
    /// `0x` + lowercase hex of `n` as an unsigned 64-bit value (`0x0` for zero).
    Hex,
    /// `0x1f` for non-negative `n`, `-0x1f` for negative `n` (magnitude in hex).
    SignedHex,
    /// Memory-offset style: `+0x10` / `-0x10`, and the empty string for zero (`[R2]`, `[R2+0x4]`).
    OffsetHex,
    /// The low 32 bits of `n` as an IEEE binary32, printed as nvdisasm prints float immediates: finite
    /// values in `%.20g`-like shortest-exact decimal (`1`, `0.5`, `-2.5`, `0.10000000149011611938`,
    /// `1.00000001335143196e-10`), `-0.0` for negative zero, and `+INF ` / `-INF ` / `+QNAN ` /
    /// `-QNAN ` / `+SNAN ` / `-SNAN ` (with one trailing space) for the non-finite values. Golden pairs
    /// in the table pin the exact digits.
    F32,
    /// The low 32 bits of `n` are the high half of an IEEE binary64 (low half zero), printed like
    /// [`NumberFormat::F32`] but with the double's value (e.g. `0x40080000` → `3`).
    F64Hi,
    /// The low 16 bits of `n` as an IEEE binary16, printed like [`NumberFormat::F32`] (e.g. `0x3c00` → `1`).
    F16,
    /// `n` as a full IEEE binary64 bit pattern (64-bit fields), printed like [`NumberFormat::F32`].
    F64,
}

/// The registers a class's words read and write, as nvdisasm's life-range listing (`nvdisasm -plr`)
/// reports them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Accesses {
    /// The rules below, possibly none (the class touches no register).
    Known(Vec<Access>),
    /// nvdisasm reports no register use for the class's words; the text says why (its words print an
    /// empty line, or they turn nvdisasm's flow analysis off, ...).
    Unknown(String),
}

impl Default for Accesses {
    fn default() -> Accesses {
        Accesses::Known(Vec::new())
    }
}

impl Accesses {
    /// The rules, or `None` when the class's accesses are unknown.
    pub fn known(&self) -> Option<&[Access]> {
        match self {
            Accesses::Known(v) => Some(v),
            Accesses::Unknown(_) => None,
        }
    }
}

/// One rule for one register location of a class.
///
/// Evaluating a word: rules that name the same `file` and `location` form a group, tried in table
/// order; the first whose `when` matches the word decides (a [`Direction::None`] rule means the
/// location is not accessed); a group with no matching rule is not accessed. The location's register
/// number `n` is the value of its bits (complemented within their width if `inverted`) or its fixed
/// number; the accessed registers are `n .. n + width`, except that the file's zero register (`RZ`
/// 255, `URZ` 63, `PT` 7, `UPT` 7) and those above it are no registers: `RZ` is never accessed, and a
/// pair at `R254` is `R254` alone. A register named by two groups (two operands naming one register)
/// is accessed in both directions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub file: RegFile,
    pub location: Location,
    pub direction: Direction,
    /// Number of consecutive registers (1; 2 for `.64` pairs; 3 or 4 for texture coordinates, ...);
    /// 0 exactly when `direction` is [`Direction::None`].
    pub width: u8,
    /// When this rule applies ([`Pattern::ANY`]: always).
    pub when: Pattern,
}

/// Where an access's register number comes from.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Location {
    /// Word bits, concatenated first range least significant (like a [`Field`]'s); `inverted` when the
    /// word stores the number complemented (some predicate operands do).
    Bits { ranges: Vec<BitRange>, inverted: bool },
    /// Always this register, whatever the word (ABI registers of calls, ...).
    Fixed(u8),
}

impl Location {
    /// The register number this location names in `word`.
    pub fn register(&self, word: u128) -> u64 {
        match self {
            Location::Fixed(n) => u64::from(*n),
            Location::Bits { ranges, inverted } => {
                let mut v = 0u64;
                let mut shift = 0u32;
                for r in ranges {
                    v |= r.extract(word) << shift;
                    shift += r.width();
                }
                if *inverted {
                    let mask = if shift >= 64 { u64::MAX } else { (1u64 << shift) - 1 };
                    v ^= mask;
                }
                v
            }
        }
    }

    /// The word bits the location reads (none for a fixed register).
    pub fn mask(&self) -> u128 {
        match self {
            Location::Fixed(_) => 0,
            Location::Bits { ranges, .. } => ranges.iter().fold(0, |m, r| m | r.mask()),
        }
    }
}

impl RegFile {
    /// The register that is no register (`RZ`, `URZ`, `PT`, `UPT`); numbers from it up are not
    /// accessed. Barriers have none within their 4 bits.
    pub fn zero_register(self) -> u64 {
        match self {
            RegFile::Gpr => 255,
            RegFile::Uniform => 63,
            RegFile::Pred | RegFile::UniformPred => 7,
            RegFile::Barrier => 16,
        }
    }

    /// The register's name prefix as nvdisasm prints it (`R`, `UR`, `P`, `UP`, `B`).
    pub fn prefix(self) -> &'static str {
        match self {
            RegFile::Gpr => "R",
            RegFile::Uniform => "UR",
            RegFile::Pred => "P",
            RegFile::UniformPred => "UP",
            RegFile::Barrier => "B",
        }
    }

    /// The order nvdisasm's life-range columns list the files in: GPR, PRED, UGPR, UPRED (then B).
    pub fn listing_order(self) -> u8 {
        match self {
            RegFile::Gpr => 0,
            RegFile::Pred => 1,
            RegFile::Uniform => 2,
            RegFile::UniformPred => 3,
            RegFile::Barrier => 4,
        }
    }
}

/// Read/write direction of a register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Not accessed (a rule that switches a location off).
    None,
    Read,
    Write,
    ReadWrite,
}

impl Direction {
    /// Both directions of `self` and `other` (a register two operands name).
    pub fn union(self, other: Direction) -> Direction {
        use Direction::*;
        match (self, other) {
            (None, d) | (d, None) => d,
            (Read, Read) => Read,
            (Write, Write) => Write,
            _ => ReadWrite,
        }
    }

    /// nvdisasm's life-range mark: `v` used, `^` assigned, `x` used and reassigned.
    pub fn mark(self) -> &'static str {
        match self {
            Direction::None => "",
            Direction::Read => "v",
            Direction::Write => "^",
            Direction::ReadWrite => "x",
        }
    }
}

/// One register one word touches, as a life-range listing shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegisterUse {
    pub file: RegFile,
    pub index: u8,
    pub direction: Direction,
}

impl RegisterUse {
    /// Sort key: nvdisasm's column order.
    pub fn listing_key(&self) -> (u8, u8) {
        (self.file.listing_order(), self.index)
    }
}

impl fmt::Display for RegisterUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.file.prefix(), self.index, self.direction.mark())
    }
}

/// One access of one word: `width` consecutive registers of `file` from `first` (clipped below the
/// zero register).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegisterAccess {
    pub file: RegFile,
    pub first: u8,
    pub width: u8,
    pub direction: Direction,
}

impl RegisterAccess {
    /// The register numbers accessed.
    pub fn registers(&self) -> impl Iterator<Item = u8> {
        let first = self.first;
        (0..self.width).map(move |i| first + i)
    }

    /// Whether nvdisasm's life-range listing shows this access: its 13.5 columns never show one that
    /// starts at `UR0`..`UR3` (`UMOV UR0, 0x1` lists nothing, `LDG ... [R2.64+UR3]` lists no `UR4`), so
    /// listings are compared without them.
    pub fn is_listed(&self) -> bool {
        !(self.file == RegFile::Uniform && self.first < 4)
    }
}

/// A verified register listing: `nvdisasm -plr` marked exactly `registers` (in column order) on the row
/// of `word`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsesGolden {
    pub word: u128,
    pub registers: Vec<RegisterUse>,
}

/// A verified decoding: nvdisasm printed `text` for `word` placed at `address` (raw mode, `-base`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Golden {
    pub address: u64,
    pub word: u128,
    pub text: String,
}

impl Class {
    /// Looks a field up by name.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl fmt::Display for BitRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lo == self.hi {
            write!(f, "{}", self.lo)
        } else {
            write!(f, "{}:{}", self.hi, self.lo)
        }
    }
}
