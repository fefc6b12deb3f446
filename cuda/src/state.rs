//! The driver's shared state behind one mutex: devices (each with its [`Runtime`], opened on first use),
//! primary contexts, modules, functions, streams and events, each known by an opaque handle the library
//! issued. A handle the library did not issue is refused, never dereferenced.

use crate::error::{DriverError, Result};
use crate::reservation::Reservation;
use sassport_runtime::{
    choose_device, enumerate_devices, DeviceInfo, DeviceSelector, KernelId, ModuleData,
    PipelineCacheLocation, Runtime, RuntimeOptions, SpirvCache,
};
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

/// The environment variable that picks one Vulkan device (an index from `sassport devices` or part of its
/// name); without it every usable device is a CUDA device.
pub const DEVICE_ENV: &str = "SASSPORT_DEVICE";
/// Device features the programs' kernels must do without (`sassport exec --without`): `float64,int8`, ...
pub const WITHOUT_ENV: &str = "SASSPORT_WITHOUT";

/// The features named by [`WITHOUT_ENV`] (none when it is unset); an unknown name is an invalid value.
fn without_from_env() -> Result<sassport_translator::abi::Features> {
    match std::env::var(WITHOUT_ENV) {
        Ok(list) => sassport_translator::abi::Features::parse(&list)
            .map_err(|e| DriverError::InvalidValue(format!("{WITHOUT_ENV}: {e}"))),
        Err(_) => Ok(sassport_translator::abi::Features::NONE),
    }
}

/// `SASSPORT_BLOCK_ORDER` (auto, ascending, concurrent): the runtime's [`sassport_runtime::BlockOrder`].
pub const BLOCK_ORDER_ENV: &str = "SASSPORT_BLOCK_ORDER";

fn block_order_from_env() -> Result<sassport_runtime::BlockOrder> {
    match std::env::var(BLOCK_ORDER_ENV) {
        Ok(order) => order.parse().map_err(|e| DriverError::InvalidValue(format!("{BLOCK_ORDER_ENV}: {e}"))),
        Err(_) => Ok(sassport_runtime::BlockOrder::Auto),
    }
}

/// `CUcontext`, `CUmodule`, `CUfunction`, ...: a number the library issued, passed through C as a pointer.
pub type Handle = usize;

/// A context's destructor callback registered through the context-local-storage table.
pub type StorageDtor = extern "C" fn(usize, *mut std::ffi::c_void, *mut std::ffi::c_void);

/// One CUDA device: a Vulkan device and, once used, its runtime.
pub struct Device {
    pub info: DeviceInfo,
    pub primary: Handle,
    gpu: Option<Gpu>,
}

/// An opened device. The window's guest addresses are reserved in the host's address space, so a pointer is
/// a device pointer exactly when it falls inside the window (what unified addressing needs).
pub struct Gpu {
    pub rt: Runtime,
    pub reservation: Reservation,
    pub spirv_cache: Option<SpirvCache>,
    /// Managed allocations ([`crate::managed`]).
    pub managed: Vec<crate::managed::ManagedRange>,
    /// Kernels were queued since managed memory last came back to the host.
    pub managed_owed: bool,
}

// SAFETY: every use of a `Gpu` happens with the driver mutex held, which is the external synchronisation
// Vulkan asks for; the runtime's mapped pointers are only dereferenced under that lock too.
unsafe impl Send for Gpu {}

impl Device {
    /// The device's runtime, opened on first use.
    pub fn gpu(&mut self) -> Result<&mut Gpu> {
        if self.gpu.is_none() {
            self.gpu = Some(open_gpu(&self.info)?);
        }
        Ok(self.gpu.as_mut().expect("opened above"))
    }

    /// The runtime if it is open.
    pub fn opened(&self) -> Option<&Gpu> {
        self.gpu.as_ref()
    }

    /// The runtime if it is open, to change.
    pub fn opened_mut(&mut self) -> Option<&mut Gpu> {
        self.gpu.as_mut()
    }
}

/// The window a device gets: the runtime's default (`SASSPORT_WINDOW_BYTES` if set, 90% of a discrete GPU's
/// memory, else one storage buffer less room for the fault record and the printf area). Known before the
/// device is opened, so that `cuDeviceTotalMem` and `cuMemGetInfo` agree whether or not it is.
pub fn window_bytes(info: &DeviceInfo) -> Result<u64> {
    Ok(sassport_runtime::default_window_bytes(info, 4 << 20)? & !0xffff)
}

fn open_gpu(info: &DeviceInfo) -> Result<Gpu> {
    let window = window_bytes(info)?;
    let reservation = Reservation::new(window)?;
    let rt = Runtime::new(RuntimeOptions {
        device: DeviceSelector::Index(info.index),
        window_base: reservation.base(),
        window_bytes: Some(window),
        kernel_timing: false,
        without: without_from_env()?,
        block_order: block_order_from_env()?,
        ..Default::default()
    })?;
    let spirv_cache = PipelineCacheLocation::UserCache
        .dir()
        .map(|d| SpirvCache::new(d.join("spirv")));
    Ok(Gpu {
        rt,
        reservation,
        spirv_cache,
        managed: Vec::new(),
        managed_owed: false,
    })
}

/// A primary context.
pub struct Context {
    pub device: usize,
    pub retained: u32,
    pub flags: u32,
    /// Context-local storage of the runtime's private table: key -> (value, destructor).
    pub storage: HashMap<usize, (usize, Option<StorageDtor>)>,
    /// The failure of a kernel that made the context unusable (until `cuDevicePrimaryCtxReset`).
    pub sticky: Option<(crate::result::CUresult, String)>,
}

/// A loaded module (or library: the same thing here).
pub struct Module {
    pub device: usize,
    /// The SM86 cubin chosen from the image.
    pub cubin: Vec<u8>,
    pub data: ModuleData,
    /// Constant banks shared by all kernels (`__constant__` variables) mirrored in the window so that
    /// `cuModuleGetGlobal` can hand out their addresses: (bank, guest address, size).
    pub mirrored_banks: Vec<crate::module::MirroredBank>,
    /// Functions already looked up, by name.
    pub functions: HashMap<String, Handle>,
}

/// A kernel of a module.
pub struct Function {
    pub module: Handle,
    pub name: String,
    /// (offset, size) of each parameter in ordinal order.
    pub params: Vec<(u32, u32)>,
    pub param_bytes: u32,
    pub static_shared: u64,
    pub registers: u32,
    pub local_bytes: u32,
    pub max_threads: u32,
    pub max_dynamic_shared: u32,
    /// The translated pipeline, once launched.
    pub kernel: Option<KernelId>,
}

pub struct Stream {
    pub flags: u32,
    pub priority: i32,
    /// The runtime serial the stream's last queued work completes with (0: none yet).
    pub last_serial: u64,
    /// The context current when it was created (`cuStreamGetCtx`).
    pub context: Handle,
}

pub struct Event {
    pub flags: u32,
    /// Where the last record put the event: see [`Recorded`].
    pub recorded: Option<Recorded>,
}

/// An event's last record: the device, the serial of the work before it, the device timestamp queued with it
/// (where the queue has timestamps) and the host moment of the call (the fallback for elapsed times).
#[derive(Clone, Copy)]
pub struct Recorded {
    pub device: usize,
    pub serial: u64,
    pub stamp: Option<sassport_runtime::TimestampId>,
    pub at: Instant,
}

/// Everything the library knows.
#[derive(Default)]
pub struct Driver {
    pub devices: Vec<Device>,
    pub contexts: HashMap<Handle, Context>,
    pub modules: HashMap<Handle, Module>,
    pub functions: HashMap<Handle, Function>,
    pub streams: HashMap<Handle, Stream>,
    pub events: HashMap<Handle, Event>,
    /// Page-locked host allocations: address -> (layout, flags).
    pub host_allocations: HashMap<usize, (std::alloc::Layout, u32)>,
    /// CUDA arrays ([`crate::array`]).
    pub arrays: HashMap<Handle, crate::array::Array>,
    /// Per device: the texture-header and sampler pools of texture and surface objects ([`crate::texobj`]).
    pub texture_pools: HashMap<usize, crate::texobj::Pools>,
    /// The resource each live texture or surface object was made from.
    pub texture_resources: HashMap<u64, crate::texobj::ResourceDesc>,
    /// Graphs, their nodes and instantiations, and stream captures ([`crate::graph`]).
    pub graphs: crate::graph::Graphs,
    next_handle: usize,
}

impl Driver {
    /// Enumerates the Vulkan devices sassport can use (or the one [`DEVICE_ENV`] names).
    fn new() -> Result<Driver> {
        let infos = enumerate_devices().map_err(|e| DriverError::NoDevice(e.to_string()))?;
        let chosen: Vec<DeviceInfo> = match std::env::var(DEVICE_ENV) {
            Ok(sel) => {
                let selector: DeviceSelector = sel.parse().expect("infallible");
                vec![choose_device(&infos, &selector)
                    .map_err(|e| DriverError::NoDevice(e.to_string()))?
                    .clone()]
            }
            Err(_) => {
                let mut usable: Vec<DeviceInfo> = infos
                    .iter()
                    .filter(|d| d.check_requirements().is_ok())
                    .cloned()
                    .collect();
                // The runtime's default order: discrete, integrated, virtual, CPU.
                usable.sort_by_key(|d| (d.kind, d.index));
                usable
            }
        };
        if chosen.is_empty() {
            return Err(DriverError::NoDevice(
                "no Vulkan device has Vulkan 1.3 and shaderInt64".into(),
            ));
        }
        let mut driver = Driver::default();
        for (ordinal, info) in chosen.into_iter().enumerate() {
            let primary = driver.issue();
            driver.contexts.insert(
                primary,
                Context {
                    device: ordinal,
                    retained: 0,
                    flags: 0,
                    storage: HashMap::new(),
                    sticky: None,
                },
            );
            driver.devices.push(Device {
                info,
                primary,
                gpu: None,
            });
        }
        Ok(driver)
    }

    /// A fresh handle: distinct, non-null, 16-byte aligned like a pointer.
    pub fn issue(&mut self) -> Handle {
        self.next_handle += 1;
        0x5a55_0000_0000 + self.next_handle * 16
    }

    pub fn device(&mut self, ordinal: i32) -> Result<&mut Device> {
        usize::try_from(ordinal)
            .ok()
            .and_then(|i| self.devices.get_mut(i))
            .ok_or(DriverError::InvalidDevice(ordinal))
    }

    pub fn context(&mut self, ctx: Handle) -> Result<&mut Context> {
        self.contexts
            .get_mut(&ctx)
            .ok_or(DriverError::InvalidContext)
    }

    /// The device of context `ctx` (0: the current one), refusing a context a kernel failure made unusable.
    pub fn usable_context(&mut self, ctx: Handle) -> Result<usize> {
        if ctx == 0 {
            return self.current_device();
        }
        let c = self.context(ctx)?;
        if let Some((code, message)) = &c.sticky {
            return Err(DriverError::Sticky {
                code: *code,
                message: message.clone(),
            });
        }
        Ok(c.device)
    }

    /// The device of the calling thread's current context; a context a kernel failure made unusable
    /// answers with that failure.
    pub fn current_device(&mut self) -> Result<usize> {
        let ctx = crate::context::current().ok_or(DriverError::InvalidContext)?;
        let c = self.context(ctx)?;
        if let Some((code, message)) = &c.sticky {
            return Err(DriverError::Sticky {
                code: *code,
                message: message.clone(),
            });
        }
        Ok(c.device)
    }

    /// The runtime of the calling thread's current context, after its queued work completed (a
    /// synchronisation point: see [`crate::sync`]).
    pub fn current_gpu(&mut self) -> Result<&mut Gpu> {
        let d = self.current_device()?;
        crate::sync::settled_gpu(self, d)
    }

    pub fn function(&mut self, f: Handle) -> Result<&mut Function> {
        self.functions
            .get_mut(&f)
            .ok_or(DriverError::InvalidHandle {
                what: "function",
                handle: f,
            })
    }

    /// The opened device whose window holds `address`, if any.
    pub fn device_of_address(&self, address: u64) -> Option<usize> {
        self.devices
            .iter()
            .position(|d| d.opened().is_some_and(|g| g.reservation.contains(address)))
    }
}

static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

fn lock() -> MutexGuard<'static, Option<Driver>> {
    // A panic while the lock was held was caught at the entry point; the state is still consistent enough.
    DRIVER.lock().unwrap_or_else(|p| p.into_inner())
}

/// Initialises the driver once (`cuInit`).
pub fn init() -> Result<()> {
    let mut guard = lock();
    if guard.is_none() {
        *guard = Some(Driver::new()?);
        // SAFETY: registers a plain function without arguments.
        unsafe { libc::atexit(settle_at_exit) };
    }
    Ok(())
}

/// At exit, queued work completes (and prints) before the process ends: a Vulkan driver must not be torn
/// down under a submission in flight. Skipped when another thread is inside a driver call.
extern "C" fn settle_at_exit() {
    let Ok(mut guard) = DRIVER.try_lock() else {
        return;
    };
    if let Some(d) = guard.as_mut() {
        for dev in 0..d.devices.len() {
            let _ = crate::sync::settle(d, dev);
        }
    }
}

/// Runs `f` on the initialised driver.
pub fn with<T>(f: impl FnOnce(&mut Driver) -> Result<T>) -> Result<T> {
    let mut guard = lock();
    let driver = guard.as_mut().ok_or(DriverError::NotInitialized)?;
    f(driver)
}
