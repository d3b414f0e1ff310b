//! What every binary does the same way.

mod memory;
pub mod output;
pub mod progress;

use std::io::{self, Write};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use nczarr::store::TraceSink;
use nczarr::{OpenOptions, Opened};

/// The trace sink `NCTRACING=n` (n > 0) asks for: lines on stderr prefixed with the tool.
pub fn trace_sink(tool: &'static str) -> Option<TraceSink> {
    let level: i64 = std::env::var("NCTRACING").ok()?.trim().parse().ok()?;
    (level > 0).then(|| {
        Arc::new(move |msg: &str| {
            let _ = writeln!(io::stderr().lock(), "{tool}: trace: {msg}");
        }) as TraceSink
    })
}

/// Open the dataset `name`, tracing when `NCTRACING` asks (as `tool`).
///
/// # Errors
/// Anything that stops the open, with the dataset name as context.
pub fn open_dataset(tool: &'static str, name: &str) -> anyhow::Result<Opened> {
    let options = OpenOptions {
        trace: trace_sink(tool),
        ..OpenOptions::default()
    };
    nczarr::open(name, &options).with_context(|| name.to_string())
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

/// Run a tool's body and turn its result into an exit code: errors print as one
/// line `tool: cause: cause...` and exit 1.
pub fn run(tool: &str, body: impl FnOnce() -> anyhow::Result<ExitCode>) -> ExitCode {
    memory::keep_freed_memory();
    match body() {
        Ok(code) => code,
        // `nczdump big | head` closes the pipe early: that is the reader's choice,
        // not a failure, so exit quietly with success like other Unix filters.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(
                io::stderr().lock(),
                "{tool}: {}",
                one_line(&format!("{e:#}"))
            );
            ExitCode::FAILURE
        }
    }
}

/// The exit of a run that got through `name`: success, or, when the reader reported
/// problems it read past (a damaged attribute, an invalid `.zarray`), each on its own
/// line and failure.
pub fn exit_after_problems(tool: &str, name: &str, problems: &[String]) -> ExitCode {
    for p in problems {
        eprintln!("{tool}: {name}: {}", one_line(p));
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

/// Keep an error on one line: newlines inside messages become spaces.
pub fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}
