//! The standard set of engine classes a channel can bind: what `sassport replay` and
//! [`crate::replay`] use. Engine crates/modules add one line each to [`standard_engines`].

use crate::channel::Engine;
use crate::sector_layout::SectorLayout;

/// Settings the standard engines are built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineOptions {
    /// Intra-GOB sector order for block-linear surfaces.
    pub sector_layout: SectorLayout,
}

/// One fresh instance of every standard engine class, for one channel.
pub fn standard_engines(options: &EngineOptions) -> Vec<Box<dyn Engine>> {
    vec![
        // Copy engines (issue 9).
        Box::new(crate::copy::DmaCopy::new(options.sector_layout)),
        Box::new(crate::copy::InlineToMemory::new(options.sector_layout)),
    ]
}
