//! CUDA graphs: graphs of kernel, copy, memset, host and empty nodes, built node by node or by capturing a
//! stream's work, instantiated into an executable snapshot and launched on a stream. All work here runs in
//! one order on the device's one queue ([`crate::sync`]), so a launch runs the nodes one after the other in a
//! topological order of their dependencies (creation order among independent nodes): every dependency is met.
//!
//! Capture ([`captured`]): while a stream captures, the work calls on it add a node (depending on the
//! stream's capture frontier) instead of running. An event recorded on a capturing stream carries that
//! frontier; a stream that waits on it joins the capture (CUDA's fork/join across streams). Entry points:
//! [`crate::graph_api`].

use crate::error::{DriverError, Result};
use crate::result::CUresult;
use crate::state::{Driver, Handle};
use std::collections::HashMap;
use std::ffi::c_void;

/// `CUhostFn`.
pub type HostFn = unsafe extern "C" fn(user_data: *mut c_void);

/// What one node does.
#[derive(Clone)]
pub enum Op {
    /// A launch with its parameter block laid out as the kernel's cubin says (copied when the node was made).
    Kernel {
        func: Handle,
        grid: [u32; 3],
        block: [u32; 3],
        shared: u32,
        params: Vec<u8>,
    },
    /// Row copies `(dst, src, bytes)` between addresses (unified addressing tells host from device).
    Copy {
        rows: Vec<(u64, u64, usize)>,
    },
    /// `height` rows of `width` elements of `pattern`, `pitch` bytes apart.
    Fill {
        dst: u64,
        pitch: usize,
        pattern: Vec<u8>,
        width: usize,
        height: usize,
    },
    Host {
        f: HostFn,
        user: usize,
    },
    Empty,
}

impl Op {
    /// `CUgraphNodeType`.
    pub fn node_type(&self) -> u32 {
        match self {
            Op::Kernel { .. } => 0,
            Op::Copy { .. } => 1,
            Op::Fill { .. } => 2,
            Op::Host { .. } => 3,
            Op::Empty => 5,
        }
    }
}

pub struct Node {
    pub graph: Handle,
    pub op: Op,
    pub deps: Vec<Handle>,
}

#[derive(Default)]
pub struct Graph {
    /// The graph's nodes in creation order.
    pub nodes: Vec<Handle>,
}

/// An instantiated graph: its nodes' operations in launch order, each with the node it came from.
pub struct Exec {
    pub ops: Vec<(Handle, Op)>,
}

/// A stream's capture: the graph it adds to, the nodes new work depends on, the stream that began it.
pub struct Capture {
    pub graph: Handle,
    pub frontier: Vec<Handle>,
    pub origin: Handle,
}

/// The graph state of the driver (a field of [`Driver`]).
#[derive(Default)]
pub struct Graphs {
    pub graphs: HashMap<Handle, Graph>,
    pub nodes: HashMap<Handle, Node>,
    pub execs: HashMap<Handle, Exec>,
    /// Capturing streams.
    pub captures: HashMap<Handle, Capture>,
    /// Events recorded on a capturing stream: (graph, the frontier at the record).
    pub events: HashMap<Handle, (Handle, Vec<Handle>)>,
    /// Clones' node maps (original node -> the clone's), for `cuGraphNodeFindInClone`.
    pub clones: HashMap<Handle, Vec<(Handle, Handle)>>,
}

/// `CUDA_ERROR_STREAM_CAPTURE_*` failures.
pub fn capture_error(code: CUresult, message: impl Into<String>) -> DriverError {
    DriverError::Capture {
        code,
        message: message.into(),
    }
}

pub fn graph_mut(d: &mut Driver, graph: Handle) -> Result<&mut Graph> {
    d.graphs
        .graphs
        .get_mut(&graph)
        .ok_or(DriverError::InvalidHandle {
            what: "graph",
            handle: graph,
        })
}

/// Adds a node with `op` to `graph` after `deps` (each a node of that graph).
pub fn add_node(d: &mut Driver, graph: Handle, deps: &[Handle], op: Op) -> Result<Handle> {
    graph_mut(d, graph)?;
    for dep in deps {
        match d.graphs.nodes.get(dep) {
            Some(n) if n.graph == graph => {}
            _ => {
                return Err(DriverError::InvalidHandle {
                    what: "dependency node",
                    handle: *dep,
                })
            }
        }
    }
    let h = d.issue();
    d.graphs.nodes.insert(
        h,
        Node {
            graph,
            op,
            deps: deps.to_vec(),
        },
    );
    graph_mut(d, graph)?.nodes.push(h);
    Ok(h)
}

/// The C array `ptr[..n]` of handles (empty when `n` is 0).
///
/// # Safety
/// `ptr` is valid for `n` handles when `n > 0`.
pub unsafe fn handles<'a>(ptr: *const Handle, n: usize, what: &str) -> Result<&'a [Handle]> {
    if n == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(DriverError::InvalidValue(format!(
            "{what} is null with a count of {n}"
        )));
    }
    Ok(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// When `stream` captures, adds `op()` to its graph after its frontier (the new node becomes the frontier)
/// and says so; otherwise false, and the caller runs the work.
pub fn captured(d: &mut Driver, stream: Handle, op: impl FnOnce() -> Result<Op>) -> Result<bool> {
    let Some(c) = d.graphs.captures.get(&stream) else {
        return Ok(false);
    };
    let (graph, frontier) = (c.graph, c.frontier.clone());
    let node = add_node(d, graph, &frontier, op()?)?;
    if let Some(c) = d.graphs.captures.get_mut(&stream) {
        c.frontier = vec![node];
    }
    Ok(true)
}

/// Work that cannot be captured here (named by `what`) on a capturing stream: refused by name, and
/// nothing runs (CUDA would add a node sassport does not have).
pub fn refuse_in_capture(d: &Driver, stream: Handle, what: &str) -> Result<()> {
    if d.graphs.captures.contains_key(&stream) {
        return Err(DriverError::NotSupported(format!(
            "{what} during stream capture"
        )));
    }
    Ok(())
}

/// A copy of `graph` with new node handles (dependencies mapped onto the copies): (clone, original -> copy).
pub fn clone_graph(d: &mut Driver, graph: Handle) -> Result<(Handle, Vec<(Handle, Handle)>)> {
    let nodes = graph_mut(d, graph)?.nodes.clone();
    let copy = d.issue();
    d.graphs.graphs.insert(copy, Graph::default());
    let mut map: Vec<(Handle, Handle)> = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let h = d.issue();
        map.push((*n, h));
    }
    for (old, new) in &map {
        let Some(node) = d.graphs.nodes.get(old) else {
            continue;
        };
        let deps = node
            .deps
            .iter()
            .filter_map(|x| map.iter().find(|(o, _)| o == x).map(|(_, n)| *n))
            .collect();
        let op = node.op.clone();
        d.graphs.nodes.insert(
            *new,
            Node {
                graph: copy,
                op,
                deps,
            },
        );
        graph_mut(d, copy)?.nodes.push(*new);
    }
    Ok((copy, map))
}

/// `cuEventRecord` on a capturing stream: the event remembers the capture's frontier (true), nothing runs.
pub fn captured_record(d: &mut Driver, event: Handle, stream: Handle) -> Result<bool> {
    let Some(c) = d.graphs.captures.get(&stream) else {
        return Ok(false);
    };
    let entry = (c.graph, c.frontier.clone());
    d.graphs.events.insert(event, entry);
    Ok(true)
}

/// `cuStreamWaitEvent` on an event recorded in a capture: `stream` joins that capture, its frontier growing
/// by the event's (true). A capture waiting on an event recorded outside any capture needs nothing (false).
pub fn captured_wait(d: &mut Driver, stream: Handle, event: Handle) -> Result<bool> {
    let Some((graph, deps)) = d.graphs.events.get(&event).cloned() else {
        return Ok(d.graphs.captures.contains_key(&stream));
    };
    if !d.graphs.graphs.contains_key(&graph) {
        // The capture the event was recorded in has ended: an ordinary wait.
        d.graphs.events.remove(&event);
        return Ok(false);
    }
    match d.graphs.captures.get_mut(&stream) {
        Some(c) if c.graph == graph => {
            for dep in deps {
                if !c.frontier.contains(&dep) {
                    c.frontier.push(dep);
                }
            }
        }
        Some(_) => {
            return Err(capture_error(
                crate::result::CUDA_ERROR_STREAM_CAPTURE_ISOLATION,
                "the stream captures into another graph than the event's",
            ))
        }
        None => {
            let origin = d
                .graphs
                .captures
                .values()
                .find(|c| c.graph == graph)
                .map_or(stream, |c| c.origin);
            d.graphs.captures.insert(
                stream,
                Capture {
                    graph,
                    frontier: deps,
                    origin,
                },
            );
        }
    }
    Ok(true)
}

/// The nodes of `graph` in launch order: Kahn's algorithm, taking ready nodes in creation order. A cycle
/// (possible through `cuGraphAddDependencies`) is refused.
pub fn launch_order(d: &Driver, graph: Handle) -> Result<Vec<Handle>> {
    let g = d
        .graphs
        .graphs
        .get(&graph)
        .ok_or(DriverError::InvalidHandle {
            what: "graph",
            handle: graph,
        })?;
    let mut done: std::collections::HashSet<Handle> = std::collections::HashSet::new();
    let mut order = Vec::with_capacity(g.nodes.len());
    while order.len() < g.nodes.len() {
        let before = order.len();
        for &n in &g.nodes {
            if done.contains(&n) {
                continue;
            }
            let ready = d
                .graphs
                .nodes
                .get(&n)
                .is_some_and(|node| node.deps.iter().all(|x| done.contains(x)));
            if ready {
                done.insert(n);
                order.push(n);
            }
        }
        if order.len() == before {
            return Err(DriverError::InvalidValue(format!(
                "graph {graph:#x} has a cycle"
            )));
        }
    }
    Ok(order)
}

/// Runs one node's operation in stream order on `stream` (a host node is run by the caller, outside the
/// driver's lock).
pub fn run(d: &mut Driver, stream: Handle, op: &Op) -> Result<()> {
    match op {
        Op::Kernel {
            func,
            grid,
            block,
            shared,
            params,
        } => crate::launch::enqueue(d, *func, *grid, *block, *shared, stream, params),
        Op::Copy { rows } => {
            for &(dst, src, n) in rows {
                crate::memory::copy_any(d, dst, src, n)?;
            }
            Ok(())
        }
        Op::Fill {
            dst,
            pitch,
            pattern,
            width,
            height,
        } => {
            for row in 0..*height {
                let at = dst + (row * pitch) as u64;
                crate::memory::fill(d, at, pattern, *width)?;
            }
            Ok(())
        }
        Op::Host { .. } | Op::Empty => Ok(()),
    }
}
