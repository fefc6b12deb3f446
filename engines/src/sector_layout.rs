//! Which intra-GOB sector order block-linear surfaces use: an explicit choice, never guessed
//! (`shared/notes/command-engines.md` §5.2).

use std::fmt;
use std::str::FromStr;

/// The order of the sixteen 32-byte sectors (16 bytes × 2 rows) inside a 64 × 8-byte GOB.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SectorLayout {
    /// Tegra K1 … X1/TX2 ("16Bx2 … laid in Z-shape"; DRM sector layout 0): offset bits
    /// b8..b0 = x5 y2 y1 x4 y0 x3 x2 x1 x0.
    Tegra16Bx2,
    /// Turing and later desktop ("TuringColor2D"; DRM sector layout 1): b8..b0 = x5 y2 x4 y1 y0 x3 x2 x1 x0.
    Turing2D,
}

impl SectorLayout {
    /// The spelling used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            SectorLayout::Tegra16Bx2 => "16bx2",
            SectorLayout::Turing2D => "turing2d",
        }
    }
}

impl fmt::Display for SectorLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.cli_name())
    }
}

/// An unknown sector-layout name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown sector layout {0:?} (expected 16bx2 or turing2d)")]
pub struct UnknownSectorLayout(pub String);

impl FromStr for SectorLayout {
    type Err = UnknownSectorLayout;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "16bx2" | "tegra16bx2" | "tegra" => Ok(SectorLayout::Tegra16Bx2),
            "turing2d" | "turing" => Ok(SectorLayout::Turing2D),
            _ => Err(UnknownSectorLayout(s.to_owned())),
        }
    }
}
