//! What every binary does the same way.

pub mod about;
mod allocator;
pub mod copy_args;
pub mod edit_args;
pub mod input;
pub mod output;
pub mod progress;
pub mod signals;

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;

use nczarr::jobs::{InputOptions, Inputs};
use nczarr::store::TraceSink;
use nczarr::{OpenOptions, Opened};

pub use allocator::{keep_freed_memory, small_pages, small_pages_from_start};
pub use input::ReadArgs;

/// The trace sink `NCTRACING=n` (n > 0) asks for: lines on stderr prefixed with the tool.
pub fn trace_sink(tool: &'static str) -> Option<TraceSink> {
    let level: i64 = std::env::var("NCTRACING").ok()?.trim().parse().ok()?;
    (level > 0).then(|| {
        Arc::new(move |msg: &str| {
            let _ = writeln!(io::stderr().lock(), "{tool}: trace: {msg}");
        }) as TraceSink
    })
}

/// Open the dataset `name` as `read` says, tracing when `NCTRACING` asks (as `tool`),
/// through the jobs' inputs step.
///
/// # Errors
/// Anything that stops the open, naming the dataset.
pub fn open_dataset(tool: &'static str, name: &str, read: &ReadArgs) -> anyhow::Result<Opened> {
    let options = InputOptions {
        open: OpenOptions {
            trace: trace_sink(tool),
            refs: read.refs(),
            ..OpenOptions::default()
        },
        ..InputOptions::default()
    };
    let inputs = Inputs::open(std::slice::from_ref(&name.to_string()), &options)?;
    let mut opened = inputs.into_opened();
    Ok(opened.remove(0))
}

/// True when `err` (or what caused it) is a broken pipe.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<nczarr::Error>().is_some_and(
                |e| matches!(e, nczarr::Error::Io(io) if io.kind() == io::ErrorKind::BrokenPipe),
            )
    })
}

/// The command line a tool was given: the process's, or the one [`set_args`] set (the
/// wheel's one program runs `nczarr-tools nczdump ARGS` as `nczdump ARGS`).
pub fn args_os() -> Vec<std::ffi::OsString> {
    match ARGS.get() {
        Some(a) => a.clone(),
        None => std::env::args_os().collect(),
    }
}

/// Set the command line [`args_os`] gives, once, before the tool parses it.
pub fn set_args(args: Vec<std::ffi::OsString>) {
    let _ = ARGS.set(args);
}

static ARGS: std::sync::OnceLock<Vec<std::ffi::OsString>> = std::sync::OnceLock::new();

/// Start the worker threads (rayon's global pool) now, for a tool that will need
/// them: each worker's start-up (its allocator heap, signal stack) then runs beside
/// the argument parsing and the dataset's opening instead of before the first
/// parallel read, which waited for it (run -> first read 0.41 -> 0.10 ms, for 0.14 ms
/// more before the arguments are parsed; created from a thread of its own instead, the
/// pool was not ready for the reads and they took 0.3-0.4 ms longer). Not for a tool
/// that configures the pool itself (`build_global` fails once the pool exists).
///
/// # Panics
/// When the threads cannot be started (rayon's own rule; a process limit on threads),
/// as the first parallel read would have.
pub fn start_workers() {
    rayon::spawn(|| {});
}

/// Run a tool's body and turn its result into an exit code: errors print as one
/// line `tool: cause: cause...` and exit 1.
pub fn run(tool: &str, body: impl FnOnce() -> anyhow::Result<ExitCode>) -> ExitCode {
    allocator::keep_freed_memory();
    let result = body();
    // A run stopped by a signal failed at its next write, or finished just then: either
    // way it ends by the signal (writing tools only; the others keep the default).
    signals::finish_stopped(tool);
    match result {
        Ok(code) => code,
        // `nczdump big | head` closes the pipe early: that is the reader's choice,
        // not a failure, so exit quietly with success like other Unix filters.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let said = one_line(&hide_passwords(&message(&e)));
            let _ = writeln!(io::stderr().lock(), "{tool}: {said}");
            ExitCode::FAILURE
        }
    }
}

/// End the process with `code` once stdout and stderr are flushed, without the C
/// runtime's exit handlers. mimalloc's handler frees and purges every page it holds
/// (64 `madvise` calls after a 400-variable header dump), work the kernel does anyway
/// when the address space goes: 0.3 ms of a 6.5 ms header dump.
pub fn exit_now(code: ExitCode) -> ! {
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    // The tools end with SUCCESS or FAILURE only (`run`, `exit_after_problems`);
    // `ExitCode` does not give its number back, so another code would need its own arm.
    let status = if code == ExitCode::SUCCESS { 0 } else { 1 };
    // SAFETY: _exit takes no pointers and ends the process; what is left to free goes
    // with it. For tools whose only output is stdout and stderr (nczdump), flushed
    // above: no exit handler has anything of theirs left to complete.
    unsafe { libc::_exit(status) }
}

/// The exit of a run that got through `name`: success, or, when the reader reported
/// problems it read past (a damaged attribute, an invalid `.zarray`), each on its own
/// line and failure.
pub fn exit_after_problems(tool: &str, name: &str, problems: &[String]) -> ExitCode {
    // Written, not `eprintln!`: a stderr closed early (`2>&1 | head`) must not make
    // the tool panic; the exit status still says there were problems.
    let mut err = std::io::stderr().lock();
    for p in problems {
        let said = one_line(&hide_passwords(&format!("{name}: {p}")));
        if writeln!(err, "{tool}: {said}").is_err() {
            break;
        }
    }
    if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A comma-separated option value (`-v a,b`) as its items; none when not given.
pub fn comma_list(s: &Option<String>) -> Vec<String> {
    s.as_deref()
        .map(|s| {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// An error and its causes as one message, each said once: a cause its error already
/// printed (`"{path}: {source}"` errors also report the source as a cause) is left
/// out, and so is a context that the next part starts with (the dataset name, when the
/// error names the dataset or a key inside it).
pub fn message(err: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if text.is_empty() || parts.iter().any(|p| p.contains(&text)) {
            continue;
        }
        parts.push(text);
    }
    let repeated_by_next = |i: usize| {
        parts.get(i + 1).is_some_and(|next| {
            next.strip_prefix(parts[i].as_str())
                .is_some_and(|rest| rest.starts_with(": ") || rest.starts_with('/'))
        })
    };
    let kept: Vec<&str> = (0..parts.len())
        .filter(|&i| !repeated_by_next(i))
        .map(|i| parts[i].as_str())
        .collect();
    kept.join(": ")
}

/// A message with the passwords of the URLs in it (`https://me:secret@host/`) written
/// `***`: a login typed into a URL is not printed back into a terminal or a CI log.
pub fn hide_passwords(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match (authority.find(':'), authority.rfind('@')) {
            (Some(colon), Some(at)) if colon < at => {
                out.push_str(&authority[..=colon]);
                out.push_str("***");
                out.push_str(&authority[at..]);
            }
            _ => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The command line this run was started with, as a shell would take it back (words
/// with spaces or quotes single-quoted), passwords in URLs hidden: what an Icechunk
/// snapshot's message and NCO's `history` record.
pub fn command_line() -> String {
    let mut words = args_os()
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned());
    let tool = words
        .next()
        .map(|t| t.rsplit('/').next().unwrap_or(&t).to_string())
        .unwrap_or_default();
    let quoted = words.map(|w| {
        let plain = !w.is_empty()
            && w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./:=,@%+#".contains(&b));
        if plain {
            w
        } else {
            format!("'{}'", w.replace('\'', "'\\''"))
        }
    });
    hide_passwords(
        &std::iter::once(tool)
            .chain(quoted)
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// Keep an error on one line: newlines inside messages become spaces.
pub fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

/// `NAME,START[,...]` that names no file: how NCO's hyperslabs (`ncks -d time,0,9`)
/// look, where a tool's own `-d` means something else (nccopy's deflate level,
/// nccmp's `--data`).
pub fn looks_like_hyperslab(arg: &str) -> bool {
    arg.split_once(',').is_some_and(|(name, rest)| {
        !name.is_empty() && !name.contains(['/', '.', ':']) && !rest.is_empty()
    }) && !std::path::Path::new(arg).exists()
}

/// A size: digits with an optional K, M, G or T suffix (powers of 1024; `KiB`, `MB`
/// and the like read the same).
pub fn parse_size(text: &str) -> anyhow::Result<u64> {
    use anyhow::{anyhow, bail};
    let t = text.trim();
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = t[digits.len()..].to_ascii_lowercase();
    let shift = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => bail!("'{text}' is not a size (a number with K, M, G or T)"),
    };
    let n: u64 = digits
        .trim()
        .parse()
        .map_err(|_| anyhow!("'{text}' is not a size (a number with K, M, G or T)"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| anyhow!("size '{text}' is too large"))
}

#[cfg(test)]
mod tests {
    use super::{hide_passwords, message};

    #[test]
    fn passwords_in_urls_are_not_printed() {
        assert_eq!(
            hide_passwords("https://me:s3cr@t@host:8080/a.nc.dds: refused; http://host/x; me:x@y"),
            "https://me:***@host:8080/a.nc.dds: refused; http://host/x; me:x@y"
        );
        assert_eq!(hide_passwords("s3://bucket/key"), "s3://bucket/key");
        assert_eq!(hide_passwords("http://u@h/"), "http://u@h/");
        assert_eq!(hide_passwords("x://"), "x://");
    }

    #[derive(Debug)]
    struct Located {
        path: &'static str,
        source: std::io::Error,
    }

    impl std::fmt::Display for Located {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "{}: {}", self.path, self.source)
        }
    }

    impl std::error::Error for Located {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.source)
        }
    }

    fn located(path: &'static str, what: &str) -> anyhow::Error {
        anyhow::Error::new(Located {
            path,
            source: std::io::Error::other(what.to_string()),
        })
    }

    #[test]
    fn each_cause_and_the_path_are_said_once() {
        let e = located("/d/a.nc", "not a directory").context("/d/a.nc");
        assert_eq!(message(&e), "/d/a.nc: not a directory");
        let e = located("/nope", "output directory does not exist").context("/nope/x.zarr");
        assert_eq!(
            message(&e),
            "/nope/x.zarr: /nope: output directory does not exist"
        );
        // The dataset named again as the start of a key inside it.
        let e = anyhow::anyhow!("az://c/d.zarr/.zmetadata: access denied").context("az://c/d.zarr");
        assert_eq!(message(&e), "az://c/d.zarr/.zmetadata: access denied");
        // Different causes are all kept, in order.
        let e = anyhow::anyhow!("unknown codec 'szip'")
            .context("variable '/v'")
            .context("/d/x.zarr");
        assert_eq!(
            message(&e),
            "/d/x.zarr: variable '/v': unknown codec 'szip'"
        );
        // A name that is a prefix of another, but not a path of it, stays.
        let e = anyhow::anyhow!("/d/x.zarr2 is missing").context("/d/x.zarr");
        assert_eq!(message(&e), "/d/x.zarr: /d/x.zarr2 is missing");
    }
}
