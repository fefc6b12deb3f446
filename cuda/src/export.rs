//! `cuGetExportTable`: the private tables the CUDA runtime asks the driver for, by UUID. What each slot
//! does is public knowledge from projects that replace the driver (ZLUDA documents them); the layouts here
//! are written from those facts:
//!
//! - CUDART_INTERFACE (6bd5fb6c-...): slot 0 the table's size; 1, 6 and 8 load a module from a fat binary
//!   (wrapper, wrapper with options, container with options); 2 gives a device's primary context; 7 takes
//!   a number and does nothing observable; 12 loads the JIT compilers (nothing to load here).
//! - TOOLS_TLS (42d85a81-...): only its size.
//! - TOOLS_RUNTIME_CALLBACK_HOOKS (a094798c-...): slots 2 and 6 hand out two zeroed buffers (1024 and 14
//!   words) the runtime writes tool hooks into.
//! - CONTEXT_LOCAL_STORAGE (c693336e-...): slots 0, 1, 2 put, delete and get a value by key in a context
//!   (the null context meaning the current one); a missing key is CUDA_ERROR_INVALID_HANDLE.
//! - CONTEXT_CHECKS (263e8860-...): slot 2 reports 0 for a context, slot 3 returns 0.
//! - INTEGRITY_CHECK (d4082055-...): slot 1, see [`crate::integrity`].
//!
//! Other tables (among them f8cff951-..., which the runtime asks for first and does without) are refused
//! with CUDA_ERROR_INVALID_VALUE, logged once by UUID.

use crate::error::DriverError;
use crate::ffi::out;
use crate::log::call;
use crate::result::{CUresult, CUDA_ERROR_INVALID_VALUE, CUDA_SUCCESS};
use crate::state::{self, Handle, StorageDtor};
use std::ffi::c_void;

/// A table of entry points as the runtime reads it: an array of pointers.
#[repr(C)]
pub struct Table<const N: usize>(pub [*const c_void; N]);
// SAFETY: the tables are immutable arrays of function pointers and sizes.
unsafe impl<const N: usize> Sync for Table<N> {}

const fn size_of_table(n: usize) -> *const c_void {
    (n * std::mem::size_of::<usize>()) as *const c_void
}
const NULL: *const c_void = std::ptr::null();

pub const CUDART_INTERFACE: [u8; 16] = uuid(
    0x6bd5fb6c,
    0x5bf4,
    0xe74a,
    [0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9],
);
pub const TOOLS_TLS: [u8; 16] = uuid(
    0x42d85a81,
    0x23f6,
    0xcb47,
    [0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc],
);
pub const TOOLS_HOOKS: [u8; 16] = uuid(
    0xa094798c,
    0x2e74,
    0x2e74,
    [0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66],
);
pub const CONTEXT_STORAGE: [u8; 16] = uuid(
    0xc693336e,
    0x1121,
    0xdf11,
    [0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93],
);
pub const CONTEXT_CHECKS: [u8; 16] = uuid(
    0x263e8860,
    0x7cd2,
    0x6143,
    [0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e],
);
/// The table the runtime asks for before `cuInit` and does without.
const OPTIONAL_FIRST: [u8; 16] = uuid(
    0xf8cff951,
    0x2146,
    0x8b4e,
    [0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9],
);
pub const TOOLS_CONTEXT: [u8; 16] = uuid(
    0x21318c60,
    0x9714,
    0x3248,
    [0x8c, 0xa6, 0x41, 0xff, 0x73, 0x24, 0xc8, 0xf2],
);
pub const INTEGRITY_CHECK: [u8; 16] = uuid(
    0xd4082055,
    0xbde6,
    0x704b,
    [0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2],
);

/// The bytes of a UUID written as `{aaaaaaaa-bbbb-cccc-dddd-dddddddddddd}` (each group big-endian, as the
/// runtime passes them).
const fn uuid(a: u32, b: u16, c: u16, d: [u8; 8]) -> [u8; 16] {
    let (a, b, c) = (a.to_be_bytes(), b.to_be_bytes(), c.to_be_bytes());
    [
        a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d[0], d[1], d[2], d[3], d[4], d[5], d[6],
        d[7],
    ]
}

pub static CUDART_TABLE: Table<13> = Table([
    size_of_table(13),
    get_module_from_cubin as *const c_void,
    primary_context as *const c_void,
    NULL,
    NULL,
    NULL,
    get_module_from_cubin_ext1 as *const c_void,
    cudart_slot7 as *const c_void,
    get_module_from_cubin_ext2 as *const c_void,
    NULL,
    NULL,
    NULL,
    load_compilers as *const c_void,
]);
static TOOLS_TLS_TABLE: Table<4> = Table([size_of_table(4), NULL, NULL, NULL]);
static TOOLS_HOOKS_TABLE: Table<7> = Table([
    size_of_table(7),
    NULL,
    hook_buffer1 as *const c_void,
    NULL,
    NULL,
    NULL,
    hook_buffer2 as *const c_void,
]);
static CONTEXT_STORAGE_TABLE: Table<4> = Table([
    storage_put as *const c_void,
    storage_delete as *const c_void,
    storage_get as *const c_void,
    NULL,
]);
static CONTEXT_CHECKS_TABLE: Table<4> = Table([
    size_of_table(4),
    NULL,
    context_check as *const c_void,
    check_slot3 as *const c_void,
]);
pub static INTEGRITY_TABLE: Table<3> = Table([
    size_of_table(3),
    crate::integrity::integrity_check as *const c_void,
    NULL,
]);

/// A buffer the runtime writes into through a pointer we hand out.
struct HookBuffer<const N: usize>(std::cell::UnsafeCell<[u32; N]>);
// SAFETY: only the runtime writes the buffers, through the pointer it asked for; we never read them.
unsafe impl<const N: usize> Sync for HookBuffer<N> {}
static HOOK_BUFFER1: HookBuffer<1024> = HookBuffer(std::cell::UnsafeCell::new([0; 1024]));
static HOOK_BUFFER2: HookBuffer<14> = HookBuffer(std::cell::UnsafeCell::new([0; 14]));

#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(
    table: *mut *const c_void,
    id: *const [u8; 16],
) -> CUresult {
    if table.is_null() || id.is_null() {
        return CUDA_ERROR_INVALID_VALUE;
    }
    let id = unsafe { *id };
    let hex: String = id.iter().map(|b| format!("{b:02x}")).collect();
    let found: Option<*const c_void> = match id {
        CUDART_INTERFACE => Some(CUDART_TABLE.0.as_ptr().cast()),
        TOOLS_TLS => Some(TOOLS_TLS_TABLE.0.as_ptr().cast()),
        TOOLS_HOOKS => Some(TOOLS_HOOKS_TABLE.0.as_ptr().cast()),
        CONTEXT_STORAGE => Some(CONTEXT_STORAGE_TABLE.0.as_ptr().cast()),
        CONTEXT_CHECKS => Some(CONTEXT_CHECKS_TABLE.0.as_ptr().cast()),
        INTEGRITY_CHECK => Some(INTEGRITY_TABLE.0.as_ptr().cast()),
        TOOLS_CONTEXT => Some(crate::tools_context::table()),
        _ => None,
    };
    call(
        "cuGetExportTable",
        || format!("id={hex}"),
        || match found {
            Some(t) => {
                unsafe { table.write(t) };
                Ok(())
            }
            None => {
                // f8cff951 is asked for first and the runtime does without it: only others are worth a line.
                if id != OPTIONAL_FIRST {
                    crate::log::once(&hex, &format!("private driver table {hex} is not provided"));
                }
                Err(DriverError::InvalidValue(format!("no private table {hex}")))
            }
        },
    )
}

unsafe extern "C" fn get_module_from_cubin(
    module: *mut Handle,
    wrapper: *const c_void,
) -> CUresult {
    call(
        "cudart.get_module_from_cubin",
        || format!("wrapper={wrapper:p}"),
        || {
            let h = unsafe { crate::module::load_image(wrapper) }?;
            unsafe { out(module, h, "module") }
        },
    )
}

unsafe extern "C" fn get_module_from_cubin_ext1(
    module: *mut Handle,
    wrapper: *const c_void,
    arg3: *mut c_void,
    arg4: *mut c_void,
    arg5: u32,
) -> CUresult {
    call(
        "cudart.get_module_from_cubin_ext1",
        || format!("wrapper={wrapper:p}, {arg3:p}, {arg4:p}, {arg5}"),
        || {
            if !arg3.is_null() || !arg4.is_null() || arg5 != 0 {
                return Err(DriverError::NotSupported(
                    "module loading options of the runtime's private table".into(),
                ));
            }
            let h = unsafe { crate::module::load_image(wrapper) }?;
            unsafe { out(module, h, "module") }
        },
    )
}

unsafe extern "C" fn get_module_from_cubin_ext2(
    container: *const c_void,
    module: *mut Handle,
    arg3: *mut c_void,
    arg4: *mut c_void,
    arg5: u32,
) -> CUresult {
    call(
        "cudart.get_module_from_cubin_ext2",
        || format!("fatbin={container:p}, {arg3:p}, {arg4:p}, {arg5}"),
        || {
            if !arg3.is_null() || !arg4.is_null() || arg5 != 0 {
                return Err(DriverError::NotSupported(
                    "module loading options of the runtime's private table".into(),
                ));
            }
            let h = unsafe { crate::module::load_image(container) }?;
            unsafe { out(module, h, "module") }
        },
    )
}

unsafe extern "C" fn primary_context(pctx: *mut Handle, dev: i32) -> CUresult {
    call(
        "cudart.primary_context",
        || format!("dev={dev}"),
        || {
            let ctx = crate::context::primary_of(dev)?;
            unsafe { out(pctx, ctx, "pctx") }
        },
    )
}

extern "C" fn cudart_slot7(_arg: usize) {}

extern "C" fn load_compilers() -> CUresult {
    CUDA_SUCCESS
}

unsafe extern "C" fn hook_buffer1(ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() && !size.is_null() {
        unsafe {
            *ptr = HOOK_BUFFER1.0.get().cast();
            *size = 1024;
        }
    }
}

unsafe extern "C" fn hook_buffer2(ptr: *mut *mut c_void, size: *mut usize) {
    if !ptr.is_null() && !size.is_null() {
        unsafe {
            *ptr = HOOK_BUFFER2.0.get().cast();
            *size = 14;
        }
    }
}

fn context_or_current(ctx: Handle) -> crate::error::Result<Handle> {
    if ctx != 0 {
        Ok(ctx)
    } else {
        crate::context::current().ok_or(DriverError::InvalidContext)
    }
}

unsafe extern "C" fn storage_put(
    ctx: Handle,
    key: *mut c_void,
    value: *mut c_void,
    dtor: Option<StorageDtor>,
) -> CUresult {
    call(
        "cls.put",
        || format!("ctx={ctx:#x}, key={key:p}, value={value:p}"),
        || {
            let ctx = context_or_current(ctx)?;
            state::with(|d| {
                d.context(ctx)?
                    .storage
                    .insert(key as usize, (value as usize, dtor));
                Ok(())
            })
        },
    )
}

unsafe extern "C" fn storage_delete(ctx: Handle, key: *mut c_void) -> CUresult {
    call(
        "cls.delete",
        || format!("ctx={ctx:#x}, key={key:p}"),
        || {
            let ctx = context_or_current(ctx)?;
            state::with(|d| {
                d.context(ctx)?.storage.remove(&(key as usize));
                Ok(())
            })
        },
    )
}

unsafe extern "C" fn storage_get(
    value: *mut *mut c_void,
    ctx: Handle,
    key: *mut c_void,
) -> CUresult {
    call(
        "cls.get",
        || format!("ctx={ctx:#x}, key={key:p}"),
        || {
            let ctx = context_or_current(ctx)?;
            let v = state::with(|d| {
                d.context(ctx)?
                    .storage
                    .get(&(key as usize))
                    .map(|(v, _)| *v)
                    .ok_or(DriverError::InvalidHandle {
                        what: "context-local storage key",
                        handle: key as usize,
                    })
            })?;
            unsafe { out(value, v as *mut c_void, "value") }
        },
    )
}

unsafe extern "C" fn context_check(
    _ctx: Handle,
    result1: *mut u32,
    _result2: *mut *const c_void,
) -> CUresult {
    if !result1.is_null() {
        unsafe { result1.write(0) };
    }
    CUDA_SUCCESS
}

extern "C" fn check_slot3() -> u32 {
    0
}
