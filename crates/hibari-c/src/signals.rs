//! Ending a program cleanly on Ctrl-C, as rclcpp's `init` arranges: the
//! first SIGINT (or SIGTERM, SIGHUP) shuts every context down — spins
//! return, pending calls fail with `HIBARI_ERROR_SHUTDOWN` — so `main`
//! goes on to its destructors and returns; a second one, if the program
//! has not ended by then, exits it at once with status 130.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use crate::context::hibari_context_shutdown;
use crate::error::{ffi, hibari_ret_t, Error};
use crate::handles::{self, hibari_context_t, Kind};

/// What installing the handler gave, kept so every later call answers the same.
static INSTALLED: OnceLock<Result<(), String>> = OnceLock::new();
static SIGNALS: AtomicUsize = AtomicUsize::new(0);

fn on_signal() {
    if SIGNALS.fetch_add(1, Ordering::SeqCst) > 0 {
        std::process::exit(130);
    }
    for id in handles::ids(Kind::Context) {
        // A context destroyed meanwhile is no longer there to shut down.
        let _ = hibari_context_shutdown(hibari_context_t { id });
    }
}

/// Installs hibari's handler of SIGINT, SIGTERM and SIGHUP (once per
/// process; later calls return what the first did): the first signal shuts
/// every context down, a second exits the process with status 130. The C++
/// layer's `hibari::init` calls it unless its options say not to. Fails
/// (`HIBARI_ERROR`) if the program already installed a handler of its own
/// through the same mechanism; the signals then keep whatever the program
/// set.
#[no_mangle]
pub extern "C" fn hibari_install_signal_handlers() -> hibari_ret_t {
    ffi(|| {
        INSTALLED
            .get_or_init(|| ctrlc::set_handler(on_signal).map_err(|e| e.to_string()))
            .clone()
            .map_err(|e| Error::other(format!("cannot install the signal handlers: {e}")))
    })
}
