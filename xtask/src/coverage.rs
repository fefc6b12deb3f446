//! `cargo xtask coverage [--check]`: the translation column of `docs/isa-coverage.md`.
//!
//! Each class's golden words (words nvdisasm printed, from the table) go through the translator one at a
//! time, each alone before an `EXIT` (`sassport_translator::coverage::word_translation`). A class is
//! *translated* when every golden word lowers to SPIR-V, *partly translated* when some do and the translator
//! refuses others by name, *refused* when it refuses every word by name (the page gives the first refusal's
//! instruction and reason), and *not reached* when no word got as far as either (the word cannot stand
//! alone, or the class has no golden word). Golden words have random operand and modifier bits, so a
//! partly translated class usually lacks a modifier rather than the instruction.
//!
//! The translator links the generated decoder, so this is a task of its own rather than part of `regen`
//! (whose output must not depend on code it generates): after a table change run `regen`, then `coverage`.
//! The other columns of the page are kept as they are. `--check` fails when the committed column differs
//! from what the translator now does, so CI catches a translator change that did not update the page.

use anyhow::Result;

#[derive(clap::Args)]
pub struct Args {
    /// Translate in memory and fail if the committed page differs.
    #[arg(long)]
    check: bool,
}

#[cfg(not(feature = "coverage"))]
pub fn run(_args: Args) -> Result<()> {
    anyhow::bail!("xtask was built without the `coverage` feature (it links the translator)")
}

#[cfg(feature = "coverage")]
pub fn run(args: Args) -> Result<()> {
    use crate::regen::{self, coverage};
    use anyhow::{bail, Context};
    use std::collections::BTreeMap;

    let root = crate::tools::repo_root();
    let table = regen::load_table(&root.join(regen::TABLE))?;
    // The translator decodes with the generated decoder this binary was built with: it must be the table's.
    let stale = table.classes.len() != sassport_gen::CLASS_COUNT
        || table.classes.iter().zip(sassport_gen::ClassId::ALL).any(|(c, id)| c.name != id.name());
    if stale {
        bail!("the generated decoder does not match {}: run `cargo xtask regen` first", regen::TABLE);
    }
    let started = std::time::Instant::now();
    let translations = translate_classes(&table)?;
    let path = root.join(regen::COVERAGE_DOC);
    let previous = std::fs::read_to_string(&path).unwrap_or_default();
    let figures = coverage::VerifyFigures::parse(&previous);
    let rows = regen::rows_with(&table, &translations);
    let page = coverage::render(&rows, &regen::table_header(&table), &figures);
    let count = |s| rows.iter().filter(|r| r.translation.status == s).count();
    println!(
        "coverage: {} classes: {} translated, {} partly translated, {} refused by name, {} not reached ({:.1} s)",
        rows.len(),
        count(coverage::TranslationStatus::Translated),
        count(coverage::TranslationStatus::PartlyTranslated),
        count(coverage::TranslationStatus::RefusedByName),
        count(coverage::TranslationStatus::NotReached),
        started.elapsed().as_secs_f64()
    );
    if !args.check {
        if page != previous {
            std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", regen::COVERAGE_DOC);
        }
        return Ok(());
    }
    if page == previous {
        println!("coverage --check: {} matches the translator", regen::COVERAGE_DOC);
        return Ok(());
    }
    let committed = coverage::parse_translations(&previous);
    let changed: BTreeMap<&String, _> =
        translations.iter().filter(|(name, t)| committed.get(*name) != Some(*t)).collect();
    for (name, t) in changed.iter().take(20) {
        let old = committed.get(*name).map_or("(none)".to_owned(), |o| format!("{:?} {}", o.status, o.detail));
        eprintln!("  {name}: committed {old}; now {:?} {}", t.status, t.detail);
    }
    bail!(
        "{} differs from what the translator does ({} classes changed status); run `cargo xtask coverage` and commit",
        regen::COVERAGE_DOC,
        changed.len()
    )
}

/// Every class's translation, on as many threads as there are cores. A panic in the translator is a defect
/// this task reports (naming the word), not a status.
#[cfg(feature = "coverage")]
fn translate_classes(
    table: &sassport_isa::Table,
) -> Result<std::collections::BTreeMap<String, crate::regen::coverage::Translation>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(table.classes.len().max(1));
    let chunk = table.classes.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let workers: Vec<_> = table
            .classes
            .chunks(chunk)
            .map(|classes| s.spawn(move || classes.iter().map(|c| Ok((c.name.clone(), class_translation(c)?))).collect::<Result<Vec<_>>>()))
            .collect();
        let mut all = std::collections::BTreeMap::new();
        for w in workers {
            let done = w.join().map_err(|_| anyhow::anyhow!("a coverage worker thread panicked"))??;
            all.extend(done);
        }
        Ok(all)
    })
}

/// What the translator does with one class's golden words.
#[cfg(feature = "coverage")]
fn class_translation(class: &sassport_isa::Class) -> Result<crate::regen::coverage::Translation> {
    use crate::regen::coverage::{Translation, TranslationStatus};
    use sassport_translator::coverage::{word_translation, WordTranslation};

    let results = class
        .golden
        .iter()
        .map(|g| {
            std::panic::catch_unwind(|| word_translation(g.word))
                .map_err(|_| anyhow::anyhow!("the translator panicked on {} golden word {:#034x}", class.name, g.word))
        })
        .collect::<Result<Vec<WordTranslation>>>()?;
    let words = results.len();
    let translated = results.iter().filter(|r| **r == WordTranslation::Translated).count();
    let refusal = results.iter().find_map(|r| match r {
        WordTranslation::Refused { name, reason } => Some(format!("`{name}`: {}", one_line(reason))),
        _ => None,
    });
    let failure = results.iter().find_map(|r| match r {
        WordTranslation::Failed(e) => Some(one_line(e)),
        _ => None,
    });
    Ok(match (refusal, failure) {
        _ if words == 0 => Translation { status: TranslationStatus::NotReached, detail: "no golden word".into() },
        (None, None) => Translation { status: TranslationStatus::Translated, detail: String::new() },
        (Some(refusal), _) if translated > 0 => Translation {
            status: TranslationStatus::PartlyTranslated,
            detail: format!("{translated} of {words} words; {refusal}"),
        },
        (Some(refusal), _) => Translation { status: TranslationStatus::RefusedByName, detail: refusal },
        (None, Some(failure)) if translated > 0 => Translation {
            status: TranslationStatus::Translated,
            detail: format!("{translated} of {words} words; the others not reached: {failure}"),
        },
        (None, Some(failure)) => Translation { status: TranslationStatus::NotReached, detail: failure },
    })
}

/// An error or reason on one line, for a table cell.
#[cfg(feature = "coverage")]
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
