//! Contexts: one domain, its transports, the `--ros-args` of the program.

use std::ffi::{c_char, c_int};
use std::sync::Arc;

use crate::args::{check_out, put, str_arg};
use crate::error::{ffi, hibari_ret_t, Error, Result};
use crate::handles::{self, hibari_context_t, Kind};

pub(crate) struct Context {
    pub inner: hibari_rs::Context,
}

/// How to create a context (`hibari_context_options_default()`, then
/// change fields).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct hibari_context_options_t {
    /// The program's arguments: `--ros-args` rules (`-r from:=to`,
    /// `-p name:=value`, `--log-level`) after it are applied. `argv` may be
    /// NULL when `argc` is 0; it is read during the call only.
    pub argc: c_int,
    pub argv: *const *const c_char,
    /// The domain; negative: `ROS_DOMAIN_ID`, else 0.
    pub domain_id: i64,
    /// A domain of its own that no other context reaches (in-process only:
    /// for tests).
    pub isolated: bool,
}

/// No arguments, the domain of `ROS_DOMAIN_ID`, not isolated.
#[no_mangle]
pub extern "C" fn hibari_context_options_default() -> hibari_context_options_t {
    hibari_context_options_t {
        argc: 0,
        argv: std::ptr::null(),
        domain_id: -1,
        isolated: false,
    }
}

/// The strings of `argv`.
///
/// # Safety
///
/// `argv` is NULL or points to `argc` pointers, each NULL or a string.
unsafe fn args(argc: c_int, argv: *const *const c_char) -> Result<Vec<String>> {
    let count = usize::try_from(argc)
        .map_err(|_| Error::invalid(format!("argc is {argc}: it cannot be negative")))?;
    if count == 0 {
        return Ok(Vec::new());
    }
    if argv.is_null() {
        return Err(Error::invalid(format!("argv is NULL but argc is {argc}")));
    }
    (0..count)
        .map(|i| {
            // SAFETY: argv holds argc pointers (the caller's contract), i < argc.
            let arg = unsafe { argv.add(i).read() };
            // SAFETY: each is NULL or a NUL-terminated string (the contract).
            unsafe { str_arg(arg, &format!("argv[{i}]")) }.map(str::to_owned)
        })
        .collect()
}

fn create(args: Vec<String>, domain: Option<u32>, isolated: bool) -> Result<u64> {
    let mut builder = hibari_rs::Context::builder();
    if let Some(d) = domain {
        builder = builder.domain(d);
    }
    if !args.is_empty() {
        builder = builder.args(args);
    }
    if isolated {
        builder = builder.isolated();
    }
    let inner = builder.create().map_err(Error::invalid_from)?;
    Ok(handles::insert(
        Kind::Context,
        0,
        Arc::new(Context { inner }),
        None,
    ))
}

/// Creates a context of the domain in `ROS_DOMAIN_ID` (0 when unset), with
/// the `--ros-args` rules found in `argv` (as `rclcpp::init`). Destroy it
/// with `hibari_context_destroy`.
///
/// # Safety
///
/// `argv` is NULL (with `argc` 0) or holds `argc` NUL-terminated strings;
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_context_init(
    argc: c_int,
    argv: *const *const c_char,
    out: *mut hibari_context_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        // SAFETY: the caller's contract.
        let id = create(unsafe { args(argc, argv) }?, None, false)?;
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_context_t { id }) }
    })
}

/// Creates a context of domain `domain_id`, without arguments.
///
/// # Safety
///
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_context_init_with_domain(
    domain_id: u32,
    out: *mut hibari_context_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let id = create(Vec::new(), Some(domain_id), false)?;
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_context_t { id }) }
    })
}

/// Creates a context as `options` say (NULL: the defaults).
///
/// # Safety
///
/// `options` is NULL or readable, its `argv` as `hibari_context_init`'s;
/// `out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_context_init_with_options(
    options: *const hibari_context_options_t,
    out: *mut hibari_context_t,
) -> hibari_ret_t {
    ffi(|| {
        check_out(out, "out")?;
        let (argc, argv, domain, isolated) = if options.is_null() {
            (0, std::ptr::null(), -1, false)
        } else {
            // SAFETY: not NULL, readable (the caller's contract). Fields are
            // read one by one, `isolated` as a byte: a bool C left with
            // another value than 0 or 1 is read as true, not as UB.
            unsafe {
                (
                    std::ptr::addr_of!((*options).argc).read_unaligned(),
                    std::ptr::addr_of!((*options).argv).read_unaligned(),
                    std::ptr::addr_of!((*options).domain_id).read_unaligned(),
                    std::ptr::addr_of!((*options).isolated).cast::<u8>().read() != 0,
                )
            }
        };
        let domain = match domain {
            d if d < 0 => None,
            d => Some(u32::try_from(d).map_err(|_| {
                Error::invalid(format!("domain_id {d} is too large (at most {})", u32::MAX))
            })?),
        };
        // SAFETY: the caller's contract.
        let id = create(unsafe { args(argc, argv) }?, domain, isolated)?;
        // SAFETY: the caller's contract.
        unsafe { put(out, "out", hibari_context_t { id }) }
    })
}

pub(crate) fn context(ctx: hibari_context_t) -> Result<Arc<Context>> {
    handles::get(Kind::Context, ctx.id)
}

/// Whether the context is not shut down.
///
/// # Safety
///
/// `ok_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_context_ok(
    ctx: hibari_context_t,
    ok_out: *mut bool,
) -> hibari_ret_t {
    ffi(|| {
        let ok = !context(ctx)?.inner.is_shut_down();
        // SAFETY: the caller's contract.
        unsafe { put(ok_out, "ok_out", ok) }
    })
}

/// The context's domain id.
///
/// # Safety
///
/// `domain_out` is writable.
#[no_mangle]
pub unsafe extern "C" fn hibari_context_domain_id(
    ctx: hibari_context_t,
    domain_out: *mut u32,
) -> hibari_ret_t {
    ffi(|| {
        let domain = context(ctx)?.inner.domain_id();
        // SAFETY: the caller's contract.
        unsafe { put(domain_out, "domain_out", domain) }
    })
}

/// Shuts the context down, from any thread (a callback too): every spin of
/// an executor holding one of its nodes returns, no node can be created in
/// it any more, and the pending asynchronous calls of its clients complete
/// with `HIBARI_ERROR_SHUTDOWN`. Its handles stay valid until destroyed.
#[no_mangle]
pub extern "C" fn hibari_context_shutdown(ctx: hibari_context_t) -> hibari_ret_t {
    ffi(|| {
        context(ctx)?.inner.shutdown();
        crate::client::fail_pending_in_context(ctx.id);
        Ok(())
    })
}

/// Shuts the context down and destroys it with its nodes (and their
/// entities): their handles become invalid, and the spins of the executors
/// they were in return.
#[no_mangle]
pub extern "C" fn hibari_context_destroy(ctx: hibari_context_t) -> hibari_ret_t {
    ffi(|| {
        context(ctx)?.inner.shutdown();
        crate::client::fail_pending_in_context(ctx.id);
        // A spin sees the shutdown through its nodes: cancel it too, in case
        // it looks only after they left it.
        let nodes = handles::all::<crate::node::Node>(Kind::Node);
        let executors = nodes
            .iter()
            .filter(|n| n.context == ctx.id)
            .filter_map(|n| {
                let executor = n.executor().as_ref().and_then(std::sync::Weak::upgrade);
                executor
            });
        executors.for_each(|e| e.cancel());
        handles::remove::<Context>(Kind::Context, ctx.id).map(drop)
    })
}
