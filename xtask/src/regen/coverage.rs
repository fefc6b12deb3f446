//! `docs/isa-coverage.md`: every class of the table with its mnemonic, nvdisasm agreement (printed text,
//! and the registers its life-range listing marks), whether its register accesses are known, and its
//! translation status.
//!
//! Two tasks write it through [`render`]: `regen` (the class list follows the table; the agreement figures
//! already in the page are kept) and `verify-isa` (new figures). Keeping the figures in the page itself means
//! neither task needs the other's inputs, and `regen --check` covers the page too.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One class as the page lists it.
pub struct ClassRow {
    pub name: String,
    /// The 13-bit opcode key.
    pub opcode: u16,
    pub mnemonic: String,
    /// How many access rules the table has for the class, or why its accesses are unknown.
    pub accesses: Result<usize, String>,
    pub translation: Translation,
}

/// What the translator does with a class's words, as `cargo xtask coverage` found by translating the class's
/// golden words (`sassport_translator::coverage::word_translation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TranslationStatus {
    /// Every golden word of the class is lowered to SPIR-V.
    Translated,
    /// Some golden words are lowered; the translator refuses others by name (a modifier or operand form it
    /// does not handle yet).
    PartlyTranslated,
    /// The translator refuses every golden word of the class with a typed error naming it.
    RefusedByName,
    /// No golden word got as far as lowering (or a refusal), or the class has none.
    NotReached,
    /// `cargo xtask coverage` has not looked at the class (new in the table since the last run).
    NotChecked,
}

impl TranslationStatus {
    fn label(self) -> &'static str {
        match self {
            TranslationStatus::Translated => "translated",
            TranslationStatus::PartlyTranslated => "partly translated",
            TranslationStatus::RefusedByName => "refused",
            TranslationStatus::NotReached => "not reached",
            TranslationStatus::NotChecked => "not checked",
        }
    }

    fn from_cell(cell: &str) -> TranslationStatus {
        [
            TranslationStatus::Translated,
            TranslationStatus::PartlyTranslated,
            TranslationStatus::RefusedByName,
            TranslationStatus::NotReached,
        ]
            .into_iter()
            .find(|s| cell == s.label() || cell.starts_with(&format!("{}:", s.label())))
            .unwrap_or(TranslationStatus::NotChecked)
    }
}

/// A class's translation status with its detail (the refusal's instruction name and reason, the count of
/// words that did translate, why none was reached).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Translation {
    pub status: TranslationStatus,
    /// Said after the status label, e.g. `` `SHFL.IDX`: warp shuffles are not translated yet `` (empty for
    /// none).
    pub detail: String,
}

impl Translation {
    pub fn not_checked() -> Translation {
        Translation { status: TranslationStatus::NotChecked, detail: String::new() }
    }

    /// The table cell, unescaped.
    fn cell(&self) -> String {
        if self.detail.is_empty() {
            self.status.label().to_owned()
        } else {
            format!("{}: {}", self.status.label(), self.detail)
        }
    }

    fn from_cell(cell: &str) -> Translation {
        let status = TranslationStatus::from_cell(cell);
        if status == TranslationStatus::NotChecked {
            return Translation::not_checked();
        }
        let detail = cell.strip_prefix(status.label()).and_then(|d| d.strip_prefix(": ")).unwrap_or("").to_owned();
        Translation { status, detail }
    }
}

/// The translation statuses already in a page [`render`] wrote, by class name (tasks that do not translate
/// keep them, as regen keeps verify-isa's figures).
pub fn parse_translations(page: &str) -> BTreeMap<String, Translation> {
    let mut out = BTreeMap::new();
    let mut in_classes = false;
    for line in page.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            in_classes = title.starts_with("Classes");
            continue;
        }
        if !in_classes {
            continue;
        }
        if let [name, _opcode, _mnemonic, _words, _agreed, _agreement, _listings, _listed, _accesses, translation] =
            split_row(line).as_slice()
        {
            if name.starts_with('`') {
                out.insert(unquote(name), Translation::from_cell(translation));
            }
        }
    }
    out
}

/// One disagreement kept as an example.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    pub word: u128,
    pub address: u64,
    pub ours: String,
    pub nvdisasm: String,
}

/// One register listing that differs, kept as an example: the registers the rules give and those
/// `nvdisasm -plr` marked (as `uses` lines write them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListingDisagreement {
    pub word: u128,
    pub ours: String,
    pub nvdisasm: String,
}

/// Per-class figures from the last verify-isa run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassFigures {
    pub words: u64,
    pub agreed: u64,
    pub example: Option<Disagreement>,
    /// Words whose life-range listing was compared, and how many the access rules predict.
    pub listings: u64,
    pub listings_agreed: u64,
    pub listing_example: Option<ListingDisagreement>,
}

/// The figures of the last verify-isa run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerifyFigures {
    /// The run's parameters, one line (seed, words asked, nvdisasm version); empty when never run.
    pub summary: String,
    /// The listing comparison's parameters; empty when not run.
    pub listing_summary: String,
    pub classes: BTreeMap<String, ClassFigures>,
}

impl VerifyFigures {
    pub fn total_words(&self) -> u64 {
        self.classes.values().map(|c| c.words).sum()
    }
    pub fn total_agreed(&self) -> u64 {
        self.classes.values().map(|c| c.agreed).sum()
    }
    pub fn total_listings(&self) -> u64 {
        self.classes.values().map(|c| c.listings).sum()
    }
    pub fn total_listings_agreed(&self) -> u64 {
        self.classes.values().map(|c| c.listings_agreed).sum()
    }

    /// Reads the figures back out of a page [`render`] wrote (missing or foreign text gives no figures).
    pub fn parse(page: &str) -> VerifyFigures {
        let mut figures = VerifyFigures::default();
        let mut section = "";
        for line in page.lines() {
            if let Some(title) = line.strip_prefix("## ") {
                section = match title {
                    t if t.starts_with("Disagreements") => "disagreements",
                    t if t.starts_with("Register listing disagreements") => "listing disagreements",
                    t if t.starts_with("Classes") => "classes",
                    _ => "",
                };
                continue;
            }
            if let Some(s) = line.strip_prefix("<!-- verify-isa: ").and_then(|s| s.strip_suffix(" -->")) {
                figures.summary = s.to_owned();
                continue;
            }
            if let Some(s) = line.strip_prefix("<!-- verify-isa listings: ").and_then(|s| s.strip_suffix(" -->")) {
                figures.listing_summary = s.to_owned();
                continue;
            }
            let cells = split_row(line);
            match (section, cells.as_slice()) {
                ("classes", [name, _opcode, _mnemonic, words, agreed, _agreement, listings, listed, ..]) => {
                    let (Ok(words), Ok(agreed)) = (words.parse::<u64>(), agreed.parse::<u64>()) else { continue };
                    let entry = figures.classes.entry(unquote(name)).or_default();
                    entry.words = words;
                    entry.agreed = agreed;
                    entry.listings = listings.parse().unwrap_or(0);
                    entry.listings_agreed = listed.parse().unwrap_or(0);
                }
                ("listing disagreements", [name, _count, word, ours, theirs]) => {
                    let Some(word) = word.trim_matches('`').strip_prefix("0x").and_then(|h| u128::from_str_radix(h, 16).ok()) else { continue };
                    figures.classes.entry(unquote(name)).or_default().listing_example =
                        Some(ListingDisagreement { word, ours: unquote(ours), nvdisasm: unquote(theirs) });
                }
                ("disagreements", [name, _count, word, address, ours, theirs]) => {
                    let word = word.trim_matches('`').strip_prefix("0x").and_then(|h| u128::from_str_radix(h, 16).ok());
                    let address = address.strip_prefix("0x").and_then(|h| u64::from_str_radix(h, 16).ok());
                    let (Some(word), Some(address)) = (word, address) else { continue };
                    figures.classes.entry(unquote(name)).or_default().example =
                        Some(Disagreement { word, address, ours: unquote(ours), nvdisasm: unquote(theirs) });
                }
                _ => {}
            }
        }
        figures
    }
}

/// Markdown table cells of one row, unescaping `\|`; empty for non-row lines.
fn split_row(line: &str) -> Vec<String> {
    let Some(inner) = line.trim().strip_prefix('|').and_then(|l| l.strip_suffix('|')) else { return Vec::new() };
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                if let Some(s) = cells.last_mut() {
                    s.push('|');
                }
                chars.next();
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().into_iter().for_each(|s| s.push(c)),
        }
    }
    cells.into_iter().map(|c| c.trim().to_owned()).collect()
}

fn unquote(cell: &str) -> String {
    cell.strip_prefix('`').and_then(|c| c.strip_suffix('`')).unwrap_or(cell).to_owned()
}

/// A table cell holding code: backquoted, `|` escaped.
fn code_cell(text: &str) -> String {
    if text.is_empty() {
        return "(empty)".to_owned();
    }
    format!("`{}`", text.replace('|', "\\|"))
}

fn percent(agreed: u64, words: u64) -> String {
    if words == 0 {
        return "—".to_owned();
    }
    // Truncate, never round up to 100%.
    let hundredths = agreed as u128 * 10_000 / words as u128;
    format!("{}.{:02}%", hundredths / 100, hundredths % 100)
}

/// The whole page.
pub fn render(classes: &[ClassRow], header: &str, figures: &VerifyFigures) -> String {
    let mut out = String::new();
    let mnemonics: std::collections::BTreeSet<&str> = classes.iter().map(|c| c.mnemonic.as_str()).collect();
    let opcodes: std::collections::BTreeSet<u16> = classes.iter().map(|c| c.opcode).collect();
    let count = |status| classes.iter().filter(|c| c.translation.status == status).count();
    let _ = writeln!(out, "# SM86 instruction classes: decoder agreement and translation status\n");
    let _ = writeln!(
        out,
        "Generated; do not edit. `cargo xtask regen` writes the class list from `isa/sm86.txt`; \
         `cargo xtask verify-isa` writes the agreement figures (it needs the pinned nvdisasm); \
         `cargo xtask coverage` writes the translation column, by translating each class's golden words alone \
         (each word followed by `EXIT`). Each task keeps the others' columns. After a table change run \
         `regen`, then `coverage` (it links the translator, which links the regenerated decoder); CI checks \
         both (`regen --check`, `coverage --check`).\n"
    );
    let _ = writeln!(out, "Table: {header}\n");
    let _ = writeln!(
        out,
        "{} classes, {} opcode keys, {} mnemonics. Translation: {} classes translated, {} partly translated \
         (other words refused by name), {} refused by name, {} not reached{}.\n",
        classes.len(),
        opcodes.len(),
        mnemonics.len(),
        count(TranslationStatus::Translated),
        count(TranslationStatus::PartlyTranslated),
        count(TranslationStatus::RefusedByName),
        count(TranslationStatus::NotReached),
        match count(TranslationStatus::NotChecked) {
            0 => String::new(),
            n => format!(", {n} not checked (run `cargo xtask coverage`)"),
        }
    );
    let _ = writeln!(out, "## Agreement with nvdisasm\n");
    if figures.summary.is_empty() {
        let _ = writeln!(out, "`cargo xtask verify-isa` has not been run on this table yet.\n");
    } else {
        let words = figures.total_words();
        let agreed = figures.total_agreed();
        let _ = writeln!(out, "<!-- verify-isa: {} -->", figures.summary);
        let _ = writeln!(
            out,
            "{} random legal words (nvdisasm accepted each) compared with nvdisasm `-b SM86 -raw`: {} agree, \
             **{}**; {} disagree. Run: {}.\n",
            group(words),
            group(agreed),
            percent(agreed, words),
            group(words - agreed),
            figures.summary
        );
    }
    if !figures.listing_summary.is_empty() {
        let (listings, agreed) = (figures.total_listings(), figures.total_listings_agreed());
        let _ = writeln!(out, "<!-- verify-isa listings: {} -->", figures.listing_summary);
        let _ = writeln!(
            out,
            "Register accesses: {} of those words laid into a kernel and listed by `nvdisasm -plr` (the registers \
             each reads and writes): the table's access rules give the same registers for {}, **{}**; {} differ. \
             Run: {}.\n",
            group(listings),
            group(agreed),
            percent(agreed, listings),
            group(listings - agreed),
            figures.listing_summary
        );
    }
    let known: std::collections::BTreeSet<&str> = classes.iter().map(|c| c.name.as_str()).collect();
    let with_disagreements: Vec<(&String, &ClassFigures)> =
        figures.classes.iter().filter(|(name, f)| f.agreed < f.words && known.contains(name.as_str())).collect();
    let _ = writeln!(out, "## Disagreements by class\n");
    if with_disagreements.is_empty() {
        let _ = writeln!(out, "None.\n");
    } else {
        let _ = writeln!(out, "| class | disagreements | example word | address | ours | nvdisasm |");
        let _ = writeln!(out, "|---|---:|---|---|---|---|");
        for (name, f) in with_disagreements {
            let (word, address, ours, theirs) = match &f.example {
                Some(d) => (format!("`0x{:032x}`", d.word), format!("0x{:x}", d.address), code_cell(&d.ours), code_cell(&d.nvdisasm)),
                None => ("—".into(), "—".into(), "—".into(), "—".into()),
            };
            let _ = writeln!(out, "| `{name}` | {} | {word} | {address} | {ours} | {theirs} |", f.words - f.agreed);
        }
        out.push('\n');
    }
    let listing_disagreements: Vec<(&String, &ClassFigures)> =
        figures.classes.iter().filter(|(name, f)| f.listings_agreed < f.listings && known.contains(name.as_str())).collect();
    if !figures.listing_summary.is_empty() {
        let _ = writeln!(out, "## Register listing disagreements by class\n");
        if listing_disagreements.is_empty() {
            let _ = writeln!(out, "None.\n");
        } else {
            let _ = writeln!(out, "| class | disagreements | example word | rules | nvdisasm -plr |");
            let _ = writeln!(out, "|---|---:|---|---|---|");
            for (name, f) in listing_disagreements {
                let (word, ours, theirs) = match &f.listing_example {
                    Some(d) => (format!("`0x{:032x}`", d.word), code_cell(&d.ours), code_cell(&d.nvdisasm)),
                    None => ("—".into(), "—".into(), "—".into()),
                };
                let _ = writeln!(out, "| `{name}` | {} | {word} | {ours} | {theirs} |", f.listings - f.listings_agreed);
            }
            out.push('\n');
        }
    }
    let _ = writeln!(out, "## Classes\n");
    let _ = writeln!(
        out,
        "| class | opcode | mnemonic | words verified | agreed | agreement | listings verified | listings agreed | accesses | translation |"
    );
    let _ = writeln!(out, "|---|---|---|---:|---:|---:|---:|---:|---|---|");
    for c in classes {
        let f = figures.classes.get(&c.name).cloned().unwrap_or_default();
        let accesses = match &c.accesses {
            Ok(n) => format!("{n} rules"),
            Err(why) => format!("unknown: {why}"),
        };
        let _ = writeln!(
            out,
            "| `{}` | 0x{:04x} | {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            c.opcode,
            if c.mnemonic.is_empty() { "(prints nothing)".to_owned() } else { format!("`{}`", c.mnemonic) },
            f.words,
            f.agreed,
            percent(f.agreed, f.words),
            f.listings,
            f.listings_agreed,
            accesses.replace('|', "\\|"),
            c.translation.cell().replace('|', "\\|")
        );
    }
    out
}

/// 1234567 → "1,234,567".
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_survive_a_render_parse_round_trip() {
        let refused = Translation {
            status: TranslationStatus::PartlyTranslated,
            detail: "2 of 5 words; `SHFL.IDX`: warp | shuffles".into(),
        };
        let classes = vec![
            ClassRow { name: "fadd_R".into(), opcode: 0x221, mnemonic: "FADD".into(), accesses: Ok(4), translation: refused.clone() },
            ClassRow {
                name: "nop_".into(),
                opcode: 0x918,
                mnemonic: "NOP".into(),
                accesses: Err("no word prints a line".into()),
                translation: Translation::not_checked(),
            },
        ];
        let mut figures = VerifyFigures {
            summary: "seed 7, nvdisasm 13.5.37".into(),
            listing_summary: "100 words".into(),
            ..Default::default()
        };
        figures.classes.insert(
            "fadd_R".into(),
            ClassFigures {
                words: 10,
                agreed: 9,
                example: Some(Disagreement {
                    word: 0x1234,
                    address: 0x40,
                    ours: "FADD R0, |R1|, R2".into(),
                    nvdisasm: "FADD R0, -|R1|, R2".into(),
                }),
                listings: 8,
                listings_agreed: 7,
                listing_example: Some(ListingDisagreement { word: 0x1234, ours: "R0^ R1v".into(), nvdisasm: "R0^ R1v R2v".into() }),
            },
        );
        figures.classes.insert("nop_".into(), ClassFigures { words: 5, agreed: 5, ..Default::default() });
        let page = render(&classes, "isa/sm86.txt", &figures);
        assert_eq!(VerifyFigures::parse(&page), figures);
        let translations = parse_translations(&page);
        assert_eq!(translations.get("fadd_R"), Some(&refused));
        assert_eq!(translations.get("nop_"), Some(&Translation::not_checked()));
        assert!(page.contains("0 classes translated, 1 partly translated (other words refused by name), 0 refused by name, 0 not reached, 1 not checked"), "{page}");
        assert!(page.contains("93.33%"), "{page}");
        assert_eq!(percent(999, 1000), "99.90%");
        assert_eq!(group(1_000_000), "1,000,000");
    }
}
