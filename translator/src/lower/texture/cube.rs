//! Cube and cube-array lookups (`TEX ... CUBE` / `ARRAY_CUBE`): the face from the direction's major axis and
//! the face's 2-D coordinates by the cube-map table CUDA's programming guide and OpenGL give
//! (+x: (-z, -y), -x: (z, -y), +y: (x, z), -y: (x, -z), +z: (x, -y), -z: (-x, -y), each over |major|,
//! mapped from [-1, 1] to [0, 1]), then the 2-D sampler on that face's layer (cube c, face f: layer 6c + f).
//!
//! nvcc divides the direction by its largest magnitude before the TEX (MUFU.RCP and three FMULs), so the
//! major component reaches the unit at about ±1. Ties pick z over y over x. Faces clamp to their edges:
//! seamless filtering across faces (the sampler's CUBEMAP_INTERFACE_FILTERING) faults by name.

use super::desc::{self, Desc};
use super::emit::E;
use crate::spirv::{Id, Op};

/// (s, t) as f32 bits and the layer of direction `xyz` (f32 bits) in cube `cube` (cube arrays); makes `d`
/// a face array: normalized coordinates, clamp to edge, six layers a cube.
pub(super) fn project(e: &mut E, d: &mut Desc, xyz: &[Id], cube: Option<Id>) -> ([Id; 2], Id) {
    let [x, y, z] = [xyz[0], xyz[1], xyz[2]].map(|v| e.f32_to_f64(v));
    let abs = |e: &mut E, v: Id| {
        let zero = e.fk(0.0);
        let neg = e.cmp(Op::FOrdLessThan, v, zero);
        let m = e.fop(Op::FSub, zero, v);
        e.fsel(neg, m, v)
    };
    let (ax, ay, az) = (abs(e, x), abs(e, y), abs(e, z));
    let z_ge_x = e.cmp(Op::FOrdGreaterThanEqual, az, ax);
    let z_ge_y = e.cmp(Op::FOrdGreaterThanEqual, az, ay);
    let z_major = e.land(z_ge_x, z_ge_y);
    let y_ge_x = e.cmp(Op::FOrdGreaterThanEqual, ay, ax);
    let not_z = e.lnot(z_major);
    let y_major = e.land(not_z, y_ge_x);
    let zero = e.fk(0.0);
    let neg = |e: &mut E, v: Id| e.fop(Op::FSub, zero, v);
    let (nx, ny, nz) = (neg(e, x), neg(e, y), neg(e, z));
    let x_pos = e.cmp(Op::FOrdGreaterThanEqual, x, zero);
    let y_pos = e.cmp(Op::FOrdGreaterThanEqual, y, zero);
    let z_pos = e.cmp(Op::FOrdGreaterThanEqual, z, zero);
    // x major: +x (-z, -y), -x (z, -y).
    let sc_x = e.fsel(x_pos, nz, z);
    let k1 = e.c(1);
    let face_x = e.selk(x_pos, 0, k1);
    // y major: +y (x, z), -y (x, -z).
    let tc_y = e.fsel(y_pos, z, nz);
    let k3 = e.c(3);
    let face_y = e.selk(y_pos, 2, k3);
    // z major: +z (x, -y), -z (-x, -y).
    let sc_z = e.fsel(z_pos, x, nx);
    let k5 = e.c(5);
    let face_z = e.selk(z_pos, 4, k5);
    let sc = e.fsel(y_major, x, sc_x);
    let sc = e.fsel(z_major, sc_z, sc);
    let tc = e.fsel(y_major, tc_y, ny);
    let ma = e.fsel(y_major, ay, ax);
    let ma = e.fsel(z_major, az, ma);
    let face = e.sel(y_major, face_y, face_x);
    let face = e.sel(z_major, face_z, face);
    let st = [sc, tc].map(|c| {
        let q = e.fop(Op::FDiv, c, ma);
        let one = e.fk(1.0);
        let q = e.fop(Op::FAdd, q, one);
        let half = e.fk(0.5);
        let q = e.fop(Op::FMul, q, half);
        e.f64_to_f32(q)
    });
    let layer = match cube {
        Some(c) => {
            let one = e.c(1);
            let last = e.sub(d.depth, one);
            let c = e.umin(c, last);
            let k6 = e.c(6);
            let base = e.mul(c, k6);
            e.add(base, face)
        }
        None => face,
    };
    let k6 = e.c(6);
    d.depth = e.mul(d.depth, k6);
    d.normalized = e.cx.m.c_bool(true);
    let edge = e.c(2);
    d.modes = [edge; 3];
    let seamless = e.bits(d.sampler_word1, 9, 1);
    let seamless = e.eqk(seamless, 1);
    let point = e.lnot(d.linear);
    let ok = e.lnot(seamless);
    let ok = e.lor(ok, point);
    desc::check(d, ok, desc::reason::CUBE_SEAMLESS);
    (st, layer)
}
