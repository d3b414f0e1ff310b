//! Glue shared by the nczarr-tools binaries (not a public API): opening datasets,
//! error reporting, exit codes, tracing.

pub mod cli;
