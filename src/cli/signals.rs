//! Ctrl-C, `SIGTERM` (a batch system's time limit) and `SIGHUP` (a closed terminal) in
//! a tool that writes: the run is asked to stop ([`nczarr::cancel`]), its ordinary
//! failure path removes what it staged beside the target (or wrote on S3), and the
//! process then ends by the same signal, so a shell sees `$?` 130, 143 or 129 and a
//! script's loop stops as it would for any other program.
//!
//! A run that does not reach a write within 3 s (blocked reading a slow source),
//! or a second signal, has its staging removed here before the process ends.

use std::io::Write as _;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

/// How long a stopped run has to clean up by its own failure path.
const GRACE: Duration = Duration::from_secs(3);

/// The signal that stopped the run (0: none).
static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// Catch the stopping signals for the writing tool `tool`. Call once, first thing in
/// `main`. Without it (or when the handler cannot be set up) signals keep their
/// default action, as in the tools that write nothing.
pub fn stop_on_signals(tool: &'static str) {
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut pending = signals.forever();
            let Some(first) = pending.next() else { return };
            CAUGHT.store(first, Ordering::SeqCst);
            nczarr::cancel::cancel();
            // The run now fails at its next write and cleans up; `finish_stopped` ends
            // the process from the main thread. Unless that takes too long, or the user
            // insists:
            std::thread::spawn(move || {
                std::thread::sleep(GRACE);
                nczarr::cancel::remove_staged();
                end_by(tool, first);
            });
            let _ = pending.next();
            nczarr::cancel::remove_staged();
            end_by(tool, first);
        });
}

/// The signal that stopped the run, if one did.
pub fn caught() -> Option<i32> {
    match CAUGHT.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// End the process when a signal stopped the run (whatever the run returned): one
/// line on stderr, then the signal's default action. Returns when no signal came.
pub fn finish_stopped(tool: &str) {
    if let Some(sig) = caught() {
        nczarr::cancel::remove_staged();
        end_by(tool, sig);
    }
}

fn end_by(tool: &str, sig: i32) -> ! {
    let name = match sig {
        SIGINT => "SIGINT",
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        _ => "a signal",
    };
    let _ = writeln!(
        std::io::stderr().lock(),
        "{tool}: stopped by {name}: the unfinished output was removed; what was at the target before is unchanged"
    );
    let _ = std::io::stdout().flush();
    let _ = signal_hook::low_level::emulate_default_handler(sig);
    // Only reached if the default action did not end the process.
    std::process::exit(128 + sig)
}
