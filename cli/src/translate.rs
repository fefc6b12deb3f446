//! Placeholder until its owner lands it.

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`translate` has not landed yet")
}
