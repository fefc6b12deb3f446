//! The 3D engine of the emulated Ampere GPU: AMPERE_A (0xC697) and AMPERE_B (0xC797).
//!
//! One job: turn the 3D class's method writes into typed state and draws. May depend on the pushbuffer
//! decoder (`sassport-pushbuffer`), the engines' memory and layout code (`sassport-engines`), the
//! translator's graphics stages (`translate_graphics::translate_stage`) and `sassport_runtime::graphics`
//! (its `TargetRenderer`); nothing else of the workspace.
//!
//! Status: first slice, started. [`methods`] names every method of the class from a table of facts
//! (offset, array stride, name) taken from NVIDIA's open-gpu-doc clc797.h; typed state and execution are
//! not written yet (see issue 22).

pub mod methods;
