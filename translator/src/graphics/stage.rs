//! The pipeline stage a program is translated for, and the check that its header agrees.

use super::sph::{ShaderProgramHeader, ShaderType};
use thiserror::Error;

/// A header written for another stage than the one the program was given as.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "SPH field ShaderType: the header is for the {header:?} stage, the program was given as {expected:?}"
)]
pub struct StageMismatch {
    pub expected: Stage,
    pub header: Stage,
}

/// A pipeline stage. Compute programs have no SPH; every other stage is headed by one.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Stage {
    #[default]
    Compute,
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
}

impl Stage {
    /// The stage a header's ShaderType field names.
    pub fn of_header(sph: &ShaderProgramHeader) -> Self {
        match sph.common.shader_type {
            ShaderType::Vertex => Self::Vertex,
            ShaderType::TessellationInit => Self::TessControl,
            ShaderType::Tessellation => Self::TessEval,
            ShaderType::Geometry => Self::Geometry,
            ShaderType::Pixel => Self::Fragment,
        }
    }

    /// Refuses a header written for another stage (a pixel header given as a vertex program).
    pub fn check_header(self, sph: &ShaderProgramHeader) -> Result<(), StageMismatch> {
        let header = Self::of_header(sph);
        if header == self {
            return Ok(());
        }
        Err(StageMismatch { expected: self, header })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graphics::sph::SPH_WORDS;

    #[test]
    fn a_pixel_header_is_not_a_vertex_program() {
        let mut words = [0u32; SPH_WORDS];
        words[0] = 2 | 3 << 5 | 5 << 10;
        let sph = ShaderProgramHeader::from_words(&words).unwrap();
        assert_eq!(Stage::of_header(&sph), Stage::Fragment);
        assert_eq!(sph_check(Stage::Fragment, &sph), Ok(()));
        let err = sph_check(Stage::Vertex, &sph).unwrap_err();
        assert_eq!(err, StageMismatch { expected: Stage::Vertex, header: Stage::Fragment });
        assert!(err.to_string().contains("ShaderType"));
        assert!(sph_check(Stage::Compute, &sph).is_err());
    }

    fn sph_check(stage: Stage, sph: &ShaderProgramHeader) -> Result<(), StageMismatch> {
        stage.check_header(sph)
    }
}
