//! Splitting a CUDA grid into dispatches the device accepts.
//!
//! CUDA allows `gridDim.x` up to 2^31 - 1; Vulkan devices often stop at 65,535 workgroups per dimension. A
//! grid is tiled into boxes no larger than the device limit; each dispatch passes its box origin to the
//! kernel as `LaunchValues::workgroup_base`, so `ctaid = gl_WorkGroupID + workgroup_base` is the CUDA block
//! index in every dispatch.

/// One dispatch: the block index of its first workgroup and its workgroup counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DispatchChunk {
    /// Block index (x, y, z) of the chunk's first workgroup.
    pub base: [u32; 3],
    /// Workgroups in each dimension (each at most the device limit).
    pub count: [u32; 3],
}

/// Number of dispatches `split_grid` yields, without building them.
pub fn chunk_count(grid: [u32; 3], max: [u32; 3]) -> u64 {
    (0..3)
        .map(|i| u64::from(grid[i].div_ceil(max[i].max(1))))
        .product()
}

/// Tiles `grid` (all dimensions >= 1) into chunks of at most `max` workgroups per dimension, x fastest.
pub fn split_grid(grid: [u32; 3], max: [u32; 3]) -> impl Iterator<Item = DispatchChunk> {
    let max = max.map(|m| m.max(1));
    let starts = move |dim: usize| (0..grid[dim]).step_by(max[dim] as usize);
    starts(2).flat_map(move |z| {
        starts(1).flat_map(move |y| {
            starts(0).map(move |x| {
                let base = [x, y, z];
                let count = [0, 1, 2].map(|i| (grid[i] - base[i]).min(max[i]));
                DispatchChunk { base, count }
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn small_grid_is_one_dispatch() {
        let c: Vec<_> = split_grid([10, 2, 1], [65535; 3]).collect();
        assert_eq!(
            c,
            vec![DispatchChunk {
                base: [0, 0, 0],
                count: [10, 2, 1]
            }]
        );
    }

    #[test]
    fn cuda_maximum_x_splits_along_x() {
        let grid = [(1u32 << 31) - 1, 1, 1];
        let chunks: Vec<_> = split_grid(grid, [65535; 3]).collect();
        assert_eq!(chunks.len() as u64, chunk_count(grid, [65535; 3]));
        assert_eq!(chunks.len(), 32769);
        let last = chunks.last().unwrap();
        assert_eq!(last.base[0] + last.count[0], grid[0]);
    }

    proptest! {
        /// Chunks tile the grid exactly once, in bounds, each within the limit.
        #[test]
        fn chunks_tile_the_grid(grid in prop::array::uniform3(1u32..40), max in prop::array::uniform3(1u32..9)) {
            let mut seen = vec![0u8; (grid[0] * grid[1] * grid[2]) as usize];
            let mut n = 0;
            for c in split_grid(grid, max) {
                n += 1;
                for i in 0..3 {
                    prop_assert!(c.count[i] >= 1 && c.count[i] <= max[i]);
                    prop_assert!(c.base[i] + c.count[i] <= grid[i]);
                }
                for z in 0..c.count[2] { for y in 0..c.count[1] { for x in 0..c.count[0] {
                    let (gx, gy, gz) = (c.base[0] + x, c.base[1] + y, c.base[2] + z);
                    seen[((gz * grid[1] + gy) * grid[0] + gx) as usize] += 1;
                }}}
            }
            prop_assert_eq!(n as u64, chunk_count(grid, max));
            prop_assert!(seen.iter().all(|&s| s == 1));
        }
    }
}
