//! `sassport info`: placeholder until the cubin reader lands.

#[derive(clap::Args)]
pub struct Args {
    /// The cubin to describe.
    pub cubin: std::path::PathBuf,
}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`info` has not landed yet")
}
