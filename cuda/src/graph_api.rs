//! The graph entry points over [`crate::graph`]: creating graphs and their kernel, memcpy, memset, host and
//! empty nodes, instantiating, launching and destroying them, and stream capture. [`entries`] lists them for
//! `cuGetProcAddress`.

use crate::array::Memcpy3d;
use crate::error::{DriverError, Result};
use crate::ffi::out;
use crate::graph::{self, capture_error, handles, Capture, Exec, HostFn, Op};
use crate::log::call;
use crate::result::*;
use crate::state::{self, Driver, Handle};
use std::ffi::c_void;

/// (name as asked for, first CUDA version with this signature, entry point).
pub fn entries() -> Vec<(&'static str, i32, *const c_void)> {
    vec![
        ("cuGraphCreate", 10000, cuGraphCreate as *const c_void),
        ("cuGraphDestroy", 10000, cuGraphDestroy as *const c_void),
        (
            "cuGraphAddKernelNode",
            12000,
            cuGraphAddKernelNode_v2 as *const c_void,
        ),
        (
            "cuGraphAddMemcpyNode",
            10000,
            cuGraphAddMemcpyNode as *const c_void,
        ),
        (
            "cuGraphAddMemsetNode",
            10000,
            cuGraphAddMemsetNode as *const c_void,
        ),
        (
            "cuGraphAddHostNode",
            10000,
            cuGraphAddHostNode as *const c_void,
        ),
        (
            "cuGraphAddEmptyNode",
            10000,
            cuGraphAddEmptyNode as *const c_void,
        ),
        (
            "cuGraphAddDependencies",
            10000,
            cuGraphAddDependencies as *const c_void,
        ),
        (
            "cuGraphAddDependencies",
            12030,
            cuGraphAddDependencies_v2 as *const c_void,
        ),
        ("cuGraphClone", 10000, cuGraphClone as *const c_void),
        (
            "cuGraphNodeFindInClone",
            10000,
            cuGraphNodeFindInClone as *const c_void,
        ),
        ("cuGraphGetNodes", 10000, cuGraphGetNodes as *const c_void),
        (
            "cuGraphNodeGetType",
            10000,
            cuGraphNodeGetType as *const c_void,
        ),
        (
            "cuGraphInstantiate",
            11000,
            cuGraphInstantiate_v2 as *const c_void,
        ),
        (
            "cuGraphInstantiateWithFlags",
            11040,
            cuGraphInstantiateWithFlags as *const c_void,
        ),
        (
            "cuGraphInstantiateWithParams",
            12000,
            cuGraphInstantiateWithParams as *const c_void,
        ),
        ("cuGraphUpload", 11010, cuGraphUpload as *const c_void),
        ("cuGraphLaunch", 10000, cuGraphLaunch as *const c_void),
        (
            "cuGraphExecDestroy",
            10000,
            cuGraphExecDestroy as *const c_void,
        ),
        (
            "cuGraphExecKernelNodeSetParams",
            12000,
            cuGraphExecKernelNodeSetParams_v2 as *const c_void,
        ),
        (
            "cuStreamBeginCapture",
            10010,
            cuStreamBeginCapture_v2 as *const c_void,
        ),
        (
            "cuStreamEndCapture",
            10000,
            cuStreamEndCapture as *const c_void,
        ),
        (
            "cuStreamIsCapturing",
            10000,
            cuStreamIsCapturing as *const c_void,
        ),
        (
            "cuStreamGetCaptureInfo",
            10010,
            cuStreamGetCaptureInfo as *const c_void,
        ),
        (
            "cuStreamGetCaptureInfo",
            11030,
            cuStreamGetCaptureInfo_v2 as *const c_void,
        ),
        (
            "cuStreamGetCaptureInfo",
            12030,
            cuStreamGetCaptureInfo_v3 as *const c_void,
        ),
        (
            "cuThreadExchangeStreamCaptureMode",
            10010,
            cuThreadExchangeStreamCaptureMode as *const c_void,
        ),
    ]
}

/// `CUDA_KERNEL_NODE_PARAMS_v2` as `cuda.h` lays it out.
#[repr(C)]
pub struct KernelNodeParams {
    func: Handle,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: Handle,
    ctx: Handle,
}

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
pub struct MemsetNodeParams {
    dst: u64,
    pitch: usize,
    value: u32,
    element_size: u32,
    width: usize,
    height: usize,
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
pub struct HostNodeParams {
    f: Option<HostFn>,
    user: *mut c_void,
}

/// `CUDA_GRAPH_INSTANTIATE_PARAMS`.
#[repr(C)]
pub struct InstantiateParams {
    flags: u64,
    upload_stream: Handle,
    error_node: Handle,
    result: u32,
}

/// A kernel node's operation: the parameters laid out now, as CUDA copies them when the node is made.
unsafe fn kernel_op(d: &mut Driver, p: *const KernelNodeParams) -> Result<Op> {
    let p = unsafe { p.as_ref() }
        .ok_or_else(|| DriverError::InvalidValue("nodeParams is null".into()))?;
    // A kernel is its function here (`cuKernelGetFunction`).
    let func = if p.func != 0 { p.func } else { p.kern };
    let f = d.function(func)?;
    let params =
        unsafe { crate::launch::parameter_block(&f.params, f.param_bytes, p.params, p.extra) }?;
    Ok(Op::Kernel {
        func,
        grid: p.grid,
        block: p.block,
        shared: p.shared,
        params,
    })
}

/// One side's address of a 3-D copy; arrays are refused by name.
fn copy_side(kind: u32, host: u64, device: u64, what: &str) -> Result<u64> {
    match kind {
        1 => Ok(host),
        2 | 4 => Ok(device),
        3 => Err(DriverError::NotSupported(format!(
            "memcpy nodes with a CUDA array as {what}"
        ))),
        other => Err(DriverError::InvalidValue(format!(
            "memory type {other} for the {what}"
        ))),
    }
}

/// A memcpy node's rows from `CUDA_MEMCPY3D`.
fn copy_op(p: &Memcpy3d) -> Result<Op> {
    let src = copy_side(p.src_type, p.src_host as u64, p.src_device, "source")?;
    let dst = copy_side(p.dst_type, p.dst_host as u64, p.dst_device, "destination")?;
    let (height, depth) = (p.height.max(1), p.depth.max(1));
    let src_pitch = if p.src_pitch == 0 {
        p.width
    } else {
        p.src_pitch
    };
    let dst_pitch = if p.dst_pitch == 0 {
        p.width
    } else {
        p.dst_pitch
    };
    let src_slice = src_pitch * p.src_height.max(height);
    let dst_slice = dst_pitch * p.dst_height.max(height);
    let mut rows = Vec::with_capacity(height * depth);
    for z in 0..depth {
        for y in 0..height {
            let s = src + (p.src_x + (p.src_y + y) * src_pitch + (p.src_z + z) * src_slice) as u64;
            let t = dst + (p.dst_x + (p.dst_y + y) * dst_pitch + (p.dst_z + z) * dst_slice) as u64;
            rows.push((t, s, p.width));
        }
    }
    Ok(Op::Copy { rows })
}

fn fill_op(p: &MemsetNodeParams) -> Result<Op> {
    let pattern = match p.element_size {
        1 => vec![p.value as u8],
        2 => (p.value as u16).to_le_bytes().to_vec(),
        4 => p.value.to_le_bytes().to_vec(),
        other => {
            return Err(DriverError::InvalidValue(format!(
                "memset element size {other}"
            )))
        }
    };
    let pitch = if p.height > 1 { p.pitch } else { 0 };
    Ok(Op::Fill {
        dst: p.dst,
        pitch,
        pattern,
        width: p.width,
        height: p.height.max(1),
    })
}

/// Adds a node made by `op` after the `n` dependencies at `deps` and writes its handle to `node`.
unsafe fn add(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    n: usize,
    op: impl FnOnce(&mut Driver) -> Result<Op>,
) -> Result<()> {
    let deps = unsafe { handles(deps, n, "dependencies") }?;
    let h = state::with(|d| {
        let op = op(d)?;
        graph::add_node(d, graph, deps, op)
    })?;
    unsafe { out(node, h, "phGraphNode") }
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphCreate(graph: *mut Handle, flags: u32) -> CUresult {
    call(
        "cuGraphCreate",
        || format!("flags={flags:#x}"),
        || {
            if flags != 0 {
                return Err(DriverError::InvalidValue(format!(
                    "flags {flags:#x} (must be 0)"
                )));
            }
            let h = state::with(|d| {
                let h = d.issue();
                d.graphs.graphs.insert(h, graph::Graph::default());
                Ok(h)
            })?;
            unsafe { out(graph, h, "phGraph") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphDestroy(graph: Handle) -> CUresult {
    call(
        "cuGraphDestroy",
        || format!("graph={graph:#x}"),
        || {
            state::with(|d| {
                let g = d
                    .graphs
                    .graphs
                    .remove(&graph)
                    .ok_or(DriverError::InvalidHandle {
                        what: "graph",
                        handle: graph,
                    })?;
                for n in g.nodes {
                    d.graphs.nodes.remove(&n);
                }
                d.graphs.clones.remove(&graph);
                Ok(())
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddKernelNode_v2(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    n: usize,
    p: *const KernelNodeParams,
) -> CUresult {
    call(
        "cuGraphAddKernelNode",
        || format!("graph={graph:#x}, deps={n}"),
        || unsafe { add(node, graph, deps, n, |d| kernel_op(d, p)) },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemcpyNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    n: usize,
    p: *const Memcpy3d,
    _ctx: Handle,
) -> CUresult {
    call(
        "cuGraphAddMemcpyNode",
        || format!("graph={graph:#x}, deps={n}"),
        || unsafe {
            let p = p
                .as_ref()
                .ok_or_else(|| DriverError::InvalidValue("copyParams is null".into()))?;
            add(node, graph, deps, n, |_| copy_op(p))
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddMemsetNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    n: usize,
    p: *const MemsetNodeParams,
    _ctx: Handle,
) -> CUresult {
    call(
        "cuGraphAddMemsetNode",
        || format!("graph={graph:#x}, deps={n}"),
        || unsafe {
            let p = p
                .as_ref()
                .ok_or_else(|| DriverError::InvalidValue("memsetParams is null".into()))?;
            add(node, graph, deps, n, |_| fill_op(p))
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddHostNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    n: usize,
    p: *const HostNodeParams,
) -> CUresult {
    call(
        "cuGraphAddHostNode",
        || format!("graph={graph:#x}, deps={n}"),
        || unsafe {
            let p = p
                .as_ref()
                .ok_or_else(|| DriverError::InvalidValue("nodeParams is null".into()))?;
            let f =
                p.f.ok_or_else(|| DriverError::InvalidValue("host node fn is null".into()))?;
            add(node, graph, deps, n, |_| {
                Ok(Op::Host {
                    f,
                    user: p.user as usize,
                })
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddEmptyNode(
    node: *mut Handle,
    graph: Handle,
    deps: *const Handle,
    n: usize,
) -> CUresult {
    call(
        "cuGraphAddEmptyNode",
        || format!("graph={graph:#x}, deps={n}"),
        || unsafe { add(node, graph, deps, n, |_| Ok(Op::Empty)) },
    )
}

fn add_dependencies(d: &mut Driver, graph: Handle, from: &[Handle], to: &[Handle]) -> Result<()> {
    graph::graph_mut(d, graph)?;
    for (&a, &b) in from.iter().zip(to) {
        let in_graph = |h: Handle| d.graphs.nodes.get(&h).is_some_and(|n| n.graph == graph);
        if !in_graph(a) || !in_graph(b) {
            return Err(DriverError::InvalidValue(format!(
                "edge {a:#x} -> {b:#x} is not within graph {graph:#x}"
            )));
        }
        if let Some(node) = d.graphs.nodes.get_mut(&b) {
            if !node.deps.contains(&a) {
                node.deps.push(a);
            }
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    n: usize,
) -> CUresult {
    call(
        "cuGraphAddDependencies",
        || format!("graph={graph:#x}, n={n}"),
        || unsafe {
            let (from, to) = (handles(from, n, "from")?, handles(to, n, "to")?);
            state::with(|d| add_dependencies(d, graph, from, to))
        },
    )
}

/// CUDA 12.3's form with edge data: only the default edge (data null or zero) is supported.
#[no_mangle]
pub unsafe extern "C" fn cuGraphAddDependencies_v2(
    graph: Handle,
    from: *const Handle,
    to: *const Handle,
    edge_data: *const [u8; 8],
    n: usize,
) -> CUresult {
    call(
        "cuGraphAddDependencies",
        || format!("graph={graph:#x}, n={n}"),
        || unsafe {
            if !edge_data.is_null() && (0..n).any(|i| *edge_data.add(i) != [0; 8]) {
                return Err(DriverError::NotSupported(
                    "graph edges with edge data".into(),
                ));
            }
            let (from, to) = (handles(from, n, "from")?, handles(to, n, "to")?);
            state::with(|d| add_dependencies(d, graph, from, to))
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphGetNodes(
    graph: Handle,
    nodes: *mut Handle,
    count: *mut usize,
) -> CUresult {
    call(
        "cuGraphGetNodes",
        || format!("graph={graph:#x}"),
        || unsafe {
            let list = state::with(|d| Ok(graph::graph_mut(d, graph)?.nodes.clone()))?;
            if count.is_null() {
                return Err(DriverError::InvalidValue("numNodes is null".into()));
            }
            if !nodes.is_null() {
                for (i, h) in list.iter().take(*count).enumerate() {
                    *nodes.add(i) = *h;
                }
            }
            *count = list.len();
            Ok(())
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeGetType(node: Handle, kind: *mut u32) -> CUresult {
    call(
        "cuGraphNodeGetType",
        || format!("node={node:#x}"),
        || {
            let t = state::with(|d| {
                d.graphs.nodes.get(&node).map(|n| n.op.node_type()).ok_or(
                    DriverError::InvalidHandle {
                        what: "graph node",
                        handle: node,
                    },
                )
            })?;
            unsafe { out(kind, t, "type") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphClone(clone: *mut Handle, graph: Handle) -> CUresult {
    call(
        "cuGraphClone",
        || format!("graph={graph:#x}"),
        || {
            let h = state::with(|d| {
                let (h, map) = graph::clone_graph(d, graph)?;
                d.graphs.clones.insert(h, map);
                Ok(h)
            })?;
            unsafe { out(clone, h, "phGraphClone") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphNodeFindInClone(
    node: *mut Handle,
    original: Handle,
    clone: Handle,
) -> CUresult {
    call(
        "cuGraphNodeFindInClone",
        || format!("node={original:#x}, clone={clone:#x}"),
        || {
            let h = state::with(|d| {
                let map = d
                    .graphs
                    .clones
                    .get(&clone)
                    .ok_or(DriverError::InvalidHandle {
                        what: "cloned graph",
                        handle: clone,
                    })?;
                map.iter()
                    .find(|(o, _)| *o == original)
                    .map(|(_, n)| *n)
                    .ok_or_else(|| {
                        DriverError::InvalidValue(format!(
                            "node {original:#x} is not in the graph {clone:#x} was cloned from"
                        ))
                    })
            })?;
            unsafe { out(node, h, "phNode") }
        },
    )
}

/// A snapshot of `graph` in launch order: later changes to the graph do not reach it, as in CUDA.
fn instantiate(d: &mut Driver, graph: Handle) -> Result<Handle> {
    let order = graph::launch_order(d, graph)?;
    let ops = order
        .iter()
        .filter_map(|n| d.graphs.nodes.get(n).map(|node| (*n, node.op.clone())))
        .collect();
    let h = d.issue();
    d.graphs.execs.insert(h, Exec { ops });
    Ok(h)
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    exec: *mut Handle,
    graph: Handle,
    flags: u64,
) -> CUresult {
    call(
        "cuGraphInstantiateWithFlags",
        || format!("graph={graph:#x}, flags={flags:#x}"),
        || {
            // Auto-free-on-launch, upload and node priorities change nothing here; device-side launch (0x4) is
            // a launch from kernels, which sassport does not have.
            if flags & 0x4 != 0 {
                return Err(DriverError::NotSupported(
                    "graphs instantiated for device launch".into(),
                ));
            }
            if flags & !0xf != 0 {
                return Err(DriverError::InvalidValue(format!(
                    "graph instantiation flags {flags:#x}"
                )));
            }
            let h = state::with(|d| instantiate(d, graph))?;
            unsafe { out(exec, h, "phGraphExec") }
        },
    )
}

/// CUDA 11's form with an error node and a log buffer.
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiate_v2(
    exec: *mut Handle,
    graph: Handle,
    error_node: *mut Handle,
    log: *mut std::ffi::c_char,
    log_size: usize,
) -> CUresult {
    if !error_node.is_null() {
        unsafe { *error_node = 0 };
    }
    if !log.is_null() && log_size > 0 {
        unsafe { *log = 0 };
    }
    unsafe { cuGraphInstantiateWithFlags(exec, graph, 0) }
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithParams(
    exec: *mut Handle,
    graph: Handle,
    p: *mut InstantiateParams,
) -> CUresult {
    let Some(params) = (unsafe { p.as_mut() }) else {
        return call("cuGraphInstantiateWithParams", String::new, || {
            Err(DriverError::InvalidValue(
                "instantiateParams is null".into(),
            ))
        });
    };
    let r = unsafe { cuGraphInstantiateWithFlags(exec, graph, params.flags & !0x2) };
    params.error_node = 0;
    // CUDA_GRAPH_INSTANTIATE_SUCCESS / _ERROR.
    params.result = u32::from(r != CUDA_SUCCESS);
    r
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphUpload(exec: Handle, stream: Handle) -> CUresult {
    call(
        "cuGraphUpload",
        || format!("exec={exec:#x}, stream={stream:#x}"),
        || {
            state::with(|d| {
                crate::stream::check(d, stream)?;
                d.graphs
                    .execs
                    .get(&exec)
                    .map(|_| ())
                    .ok_or(DriverError::InvalidHandle {
                        what: "graph exec",
                        handle: exec,
                    })
            })
        },
    )
}

/// Runs an executable graph's operations on `stream`, in order; host nodes run outside the driver's lock
/// after the stream's queued work (as `cuLaunchHostFunc`).
fn launch(exec: Handle, stream: Handle) -> Result<()> {
    let ops = state::with(|d| {
        crate::stream::check(d, stream)?;
        if d.graphs.captures.contains_key(&stream) {
            return Err(DriverError::NotSupported(
                "launching a graph into a capturing stream".into(),
            ));
        }
        let e = d
            .graphs
            .execs
            .get(&exec)
            .ok_or(DriverError::InvalidHandle {
                what: "graph exec",
                handle: exec,
            })?;
        Ok(e.ops.iter().map(|(_, op)| op.clone()).collect::<Vec<_>>())
    })?;
    for op in &ops {
        match op {
            Op::Host { f, user } => {
                state::with(|d| crate::stream::synchronize(d, stream))?;
                // SAFETY: the caller's function with the caller's argument, as CUDA would call it.
                unsafe { f(*user as *mut c_void) };
            }
            other => state::with(|d| graph::run(d, stream, other))?,
        }
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphLaunch(exec: Handle, stream: Handle) -> CUresult {
    call(
        "cuGraphLaunch",
        || format!("exec={exec:#x}, stream={stream:#x}"),
        || launch(exec, stream),
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecDestroy(exec: Handle) -> CUresult {
    call(
        "cuGraphExecDestroy",
        || format!("exec={exec:#x}"),
        || {
            state::with(|d| {
                d.graphs
                    .execs
                    .remove(&exec)
                    .map(|_| ())
                    .ok_or(DriverError::InvalidHandle {
                        what: "graph exec",
                        handle: exec,
                    })
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    exec: Handle,
    node: Handle,
    p: *const KernelNodeParams,
) -> CUresult {
    call(
        "cuGraphExecKernelNodeSetParams",
        || format!("exec={exec:#x}, node={node:#x}"),
        || {
            state::with(|d| {
                let op = unsafe { kernel_op(d, p) }?;
                let e = d
                    .graphs
                    .execs
                    .get_mut(&exec)
                    .ok_or(DriverError::InvalidHandle {
                        what: "graph exec",
                        handle: exec,
                    })?;
                let slot = e.ops.iter_mut().find(|(n, _)| *n == node).ok_or(
                    DriverError::InvalidHandle {
                        what: "graph node",
                        handle: node,
                    },
                )?;
                if !matches!(slot.1, Op::Kernel { .. }) {
                    return Err(DriverError::InvalidValue(format!(
                        "node {node:#x} is not a kernel node"
                    )));
                }
                slot.1 = op;
                Ok(())
            })
        },
    )
}

/// The legacy and per-thread default streams cannot capture (CUDA refuses the legacy stream too).
fn capturable(d: &mut Driver, stream: Handle) -> Result<()> {
    crate::stream::check(d, stream)?;
    if stream <= 2 {
        return Err(capture_error(
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            "the default stream cannot capture",
        ));
    }
    Ok(())
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamBeginCapture_v2(stream: Handle, mode: u32) -> CUresult {
    call(
        "cuStreamBeginCapture",
        || format!("stream={stream:#x}, mode={mode}"),
        || {
            state::with(|d| {
                capturable(d, stream)?;
                if d.graphs.captures.contains_key(&stream) {
                    return Err(DriverError::Capture {
                        code: CUDA_ERROR_ILLEGAL_STATE,
                        message: format!("stream {stream:#x} is already capturing"),
                    });
                }
                let graph = d.issue();
                d.graphs.graphs.insert(graph, graph::Graph::default());
                d.graphs.captures.insert(
                    stream,
                    Capture {
                        graph,
                        frontier: Vec::new(),
                        origin: stream,
                    },
                );
                Ok(())
            })
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(stream: Handle, graph_out: *mut Handle) -> CUresult {
    call(
        "cuStreamEndCapture",
        || format!("stream={stream:#x}"),
        || {
            let graph = state::with(|d| {
                crate::stream::check(d, stream)?;
                let c = d.graphs.captures.get(&stream).ok_or_else(|| {
                    DriverError::InvalidValue(format!("stream {stream:#x} is not capturing"))
                })?;
                if c.origin != stream {
                    return Err(capture_error(
                        CUDA_ERROR_STREAM_CAPTURE_UNMATCHED,
                        "capture ended on a stream that joined it",
                    ));
                }
                let graph = c.graph;
                // Streams that joined the capture (through events) leave it with the stream that began it.
                d.graphs.captures.retain(|_, c| c.graph != graph);
                d.graphs.events.retain(|_, (g, _)| *g != graph);
                Ok(graph)
            })?;
            unsafe { out(graph_out, graph, "phGraph") }
        },
    )
}

/// `CUstreamCaptureStatus` of `stream` and its capture's id (the graph's handle) and frontier.
fn capture_info(stream: Handle) -> Result<(u32, u64, Handle, *const Handle, usize)> {
    state::with(|d| {
        crate::stream::check(d, stream)?;
        Ok(match d.graphs.captures.get(&stream) {
            Some(c) => (
                1,
                c.graph as u64,
                c.graph,
                c.frontier.as_ptr(),
                c.frontier.len(),
            ),
            None => (0, 0, 0, std::ptr::null(), 0),
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(stream: Handle, status: *mut u32) -> CUresult {
    call(
        "cuStreamIsCapturing",
        || format!("stream={stream:#x}"),
        || {
            let (s, ..) = capture_info(stream)?;
            unsafe { out(status, s, "captureStatus") }
        },
    )
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo(
    stream: Handle,
    status: *mut u32,
    id: *mut u64,
) -> CUresult {
    unsafe {
        cuStreamGetCaptureInfo_v3(
            stream,
            status,
            id,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v2(
    stream: Handle,
    status: *mut u32,
    id: *mut u64,
    graph: *mut Handle,
    deps: *mut *const Handle,
    n: *mut usize,
) -> CUresult {
    unsafe { cuStreamGetCaptureInfo_v3(stream, status, id, graph, deps, std::ptr::null_mut(), n) }
}

/// The frontier array stays valid until the stream's next capture call, as CUDA promises; edge data is
/// never set (all edges are default ones).
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    stream: Handle,
    status: *mut u32,
    id: *mut u64,
    graph: *mut Handle,
    deps: *mut *const Handle,
    edges: *mut *const c_void,
    n: *mut usize,
) -> CUresult {
    call(
        "cuStreamGetCaptureInfo",
        || format!("stream={stream:#x}"),
        || {
            let (s, capture_id, g, list, count) = capture_info(stream)?;
            unsafe {
                out(status, s, "captureStatus_out")?;
                if !id.is_null() {
                    *id = capture_id;
                }
                if !graph.is_null() {
                    *graph = g;
                }
                if !deps.is_null() {
                    *deps = list;
                }
                if !edges.is_null() {
                    *edges = std::ptr::null();
                }
                if !n.is_null() {
                    *n = count;
                }
            }
            Ok(())
        },
    )
}

thread_local! {
    /// This thread's `CUstreamCaptureMode` (global by default).
    static CAPTURE_MODE: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// Swaps the thread's capture mode with `*mode`. Only what the mode says is remembered: no call here is
/// refused during another thread's capture (all captured work is asynchronous by construction).
#[no_mangle]
pub unsafe extern "C" fn cuThreadExchangeStreamCaptureMode(mode: *mut u32) -> CUresult {
    call(
        "cuThreadExchangeStreamCaptureMode",
        String::new,
        || unsafe {
            let m = mode
                .as_mut()
                .ok_or_else(|| DriverError::InvalidValue("mode is null".into()))?;
            if *m > 2 {
                return Err(DriverError::InvalidValue(format!("capture mode {}", *m)));
            }
            *m = CAPTURE_MODE.with(|c| c.replace(*m));
            Ok(())
        },
    )
}
