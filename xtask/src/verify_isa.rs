//! `cargo xtask verify-isa`: compares the generated disassembler with the pinned nvdisasm on random legal
//! words and writes the figures into `docs/isa-coverage.md`.
//!
//! Words are made per class: the class's fixed bits, every other bit random (for three words in four the
//! scheduling/opex bits 127:105 come from one of the class's golden words, since most random opex values
//! are illegal). nvdisasm decides which words are legal: it disassembles each batch, the words it names as
//! illegal become NOPs at the same addresses, and only the words it printed count. Every word stays at its
//! address, so PC-relative targets compare as printed.
//!
//! Then the register accesses: a sample of the words that printed alike (the same number per class) is
//! laid into a kernel and listed by `nvdisasm -plr`, and each word's marked registers are compared with
//! what the generated decoder's access rules give.

#[cfg(feature = "verify")]
pub(crate) mod compare;
#[cfg(feature = "verify")]
pub(crate) mod nvdisasm;
#[cfg(feature = "verify")]
mod round_trip;

#[cfg(feature = "verify")]
pub use compare::run;

#[cfg(not(feature = "verify"))]
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("xtask was built without the `verify` feature (it links the generated decoder)")
}

#[derive(clap::Args)]
pub struct Args {
    /// Legal words to compare (words nvdisasm rejects do not count).
    #[arg(long, default_value_t = 1_000_000)]
    words: u64,
    /// Random seed; the same seed and table give the same words.
    #[arg(long, default_value_t = 86)]
    seed: u64,
    /// Words per nvdisasm run.
    #[arg(long, default_value_t = 50_000)]
    batch: usize,
    /// nvdisasm processes to run at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Compare only, do not rewrite docs/isa-coverage.md.
    #[arg(long)]
    no_write: bool,
    /// Minimum agreement (percent) for success.
    #[arg(long, default_value_t = 99.9)]
    min_agreement: f64,
    /// Words whose register listing (`nvdisasm -plr`) is compared with the access rules (0: none).
    #[arg(long, default_value_t = 100_000)]
    listings: usize,
    /// Minimum listing agreement (percent) for success.
    #[arg(long, default_value_t = 99.0)]
    min_listing_agreement: f64,
    /// Check the encoder instead (`verify_isa/round_trip.rs`): nvdisasm's text of each legal word encoded
    /// and disassembled again, and every `dis --control` line assembled back. Writes nothing.
    #[arg(long)]
    round_trip: bool,
}

