//! The DMA engine's component remap (SET_REMAP_CONST_A/B, SET_REMAP_COMPONENTS; clc6b5.h).
//!
//! With remap enabled an element is NUM_SRC_COMPONENTS (source) or NUM_DST_COMPONENTS (destination)
//! components of COMPONENT_SIZE bytes each, and X extents are counted in elements. Each destination
//! component takes a source component, the low bytes of CONST_A or CONST_B, or is not written at all.

use super::error::CopyError;

/// What one destination component receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentSource {
    /// Source component 0..=3 (X, Y, Z, W).
    Source(u8),
    ConstA,
    ConstB,
    /// The destination bytes keep their value.
    NoWrite,
}

/// A decoded remap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Remap {
    pub component_bytes: u32,
    pub src_components: u32,
    pub dst_components: u32,
    /// Sources of destination components X, Y, Z, W (only the first `dst_components` are used).
    pub dst: [ComponentSource; 4],
    pub const_a: u32,
    pub const_b: u32,
}

const NAMES: [char; 4] = ['X', 'Y', 'Z', 'W'];

impl Remap {
    /// Decodes SET_REMAP_COMPONENTS (0x708) with the two constants.
    pub fn decode(components: u32, const_a: u32, const_b: u32) -> Result<Remap, CopyError> {
        let mut dst = [ComponentSource::NoWrite; 4];
        let component_bytes = ((components >> 16) & 3) + 1;
        let src_components = ((components >> 20) & 3) + 1;
        let dst_components = ((components >> 24) & 3) + 1;
        for (i, slot) in dst.iter_mut().enumerate() {
            let field = (components >> (4 * i)) & 7;
            *slot = match field {
                0..=3 => ComponentSource::Source(field as u8),
                4 => ComponentSource::ConstA,
                5 => ComponentSource::ConstB,
                6 => ComponentSource::NoWrite,
                _ => {
                    return Err(CopyError::BadField {
                        method: "SET_REMAP_COMPONENTS",
                        field: ["DST_X", "DST_Y", "DST_Z", "DST_W"][i],
                        value: field,
                    })
                }
            };
            if let ComponentSource::Source(s) = *slot {
                if (i as u32) < dst_components && s as u32 >= src_components {
                    return Err(CopyError::RemapComponent {
                        dst: NAMES[i],
                        src: NAMES[s as usize],
                        num_src: src_components,
                    });
                }
            }
        }
        Ok(Remap {
            component_bytes,
            src_components,
            dst_components,
            dst,
            const_a,
            const_b,
        })
    }

    /// Bytes in one source element.
    pub fn src_element_bytes(&self) -> u32 {
        self.component_bytes * self.src_components
    }

    /// Bytes in one destination element.
    pub fn dst_element_bytes(&self) -> u32 {
        self.component_bytes * self.dst_components
    }

    fn used(&self) -> &[ComponentSource] {
        &self.dst[..self.dst_components as usize]
    }

    /// Whether any destination component is taken from the source (otherwise the source is never read).
    pub fn reads_source(&self) -> bool {
        self.used()
            .iter()
            .any(|c| matches!(c, ComponentSource::Source(_)))
    }

    /// Whether some destination bytes are left unwritten.
    pub fn has_no_write(&self) -> bool {
        self.used().contains(&ComponentSource::NoWrite)
    }

    /// Whether destination elements are the source elements unchanged.
    pub fn is_identity(&self) -> bool {
        self.src_components == self.dst_components
            && self
                .used()
                .iter()
                .enumerate()
                .all(|(i, c)| *c == ComponentSource::Source(i as u8))
    }

    /// One destination element as (bytes, written?) per byte, from one source element (`None` when the
    /// source is not read).
    fn element(&self, src: Option<&[u8]>, out: &mut [u8], mask: &mut [bool]) {
        let n = self.component_bytes as usize;
        for (i, c) in self.used().iter().enumerate() {
            let o = &mut out[i * n..(i + 1) * n];
            let m = &mut mask[i * n..(i + 1) * n];
            match *c {
                ComponentSource::Source(s) => {
                    if let Some(src) = src {
                        o.copy_from_slice(&src[s as usize * n..(s as usize + 1) * n]);
                    }
                    m.fill(true);
                }
                ComponentSource::ConstA => {
                    o.copy_from_slice(&self.const_a.to_le_bytes()[..n]);
                    m.fill(true);
                }
                ComponentSource::ConstB => {
                    o.copy_from_slice(&self.const_b.to_le_bytes()[..n]);
                    m.fill(true);
                }
                ComponentSource::NoWrite => m.fill(false),
            }
        }
    }

    /// The per-byte write mask of one destination line, when some bytes are not written.
    pub fn line_mask(&self, elements: usize) -> Option<Vec<bool>> {
        if !self.has_no_write() {
            return None;
        }
        let e = self.dst_element_bytes() as usize;
        let mut one = vec![0u8; e];
        let mut one_mask = vec![false; e];
        self.element(None, &mut one, &mut one_mask);
        Some(one_mask.repeat(elements))
    }

    /// One destination line of `elements` elements for a fill (no source component used), with the
    /// byte mask when some bytes are not written.
    pub fn fill_line(&self, elements: usize) -> (Vec<u8>, Option<Vec<bool>>) {
        let e = self.dst_element_bytes() as usize;
        let mut one = vec![0u8; e];
        let mut one_mask = vec![false; e];
        self.element(None, &mut one, &mut one_mask);
        let line = one.repeat(elements);
        let mask = self.has_no_write().then(|| one_mask.repeat(elements));
        (line, mask)
    }

    /// Remaps `rows` lines of `elements` source elements (`src`, packed) into destination lines
    /// (packed), returning the per-byte write mask of one line when some bytes are not written.
    pub fn apply(&self, src: &[u8], rows: usize, elements: usize) -> (Vec<u8>, Option<Vec<bool>>) {
        let se = self.src_element_bytes() as usize;
        let de = self.dst_element_bytes() as usize;
        // One destination element as a template (constants in place) plus the bytes taken from the
        // source element: (destination byte, source byte).
        let mut template = vec![0u8; de];
        let mut written = vec![false; de];
        self.element(None, &mut template, &mut written);
        let n = self.component_bytes as usize;
        let picks: Vec<(usize, usize)> = self
            .used()
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match *c {
                ComponentSource::Source(s) => Some((i, s as usize)),
                _ => None,
            })
            .flat_map(|(i, s)| (0..n).map(move |k| (i * n + k, s * n + k)))
            .collect();
        let mut out = vec![0u8; rows * elements * de];
        for (s, d) in src.chunks_exact(se).zip(out.chunks_exact_mut(de)) {
            d.copy_from_slice(&template);
            for &(dj, sj) in &picks {
                d[dj] = s[sj];
            }
        }
        (out, self.line_mask(elements))
    }
}
