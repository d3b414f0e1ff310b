//! What every tool (or every reading or writing tool) must do alike: each test runs
//! several tools and asserts the same of each.

/// One-line errors, unknown codec parameters, wrong credentials: every tool alike.
mod errors;
/// Every tool through a fault-injecting proxy in front of the local S3 server.
mod faults;
/// What is at an output path survives: refusals, replacement, killed runs, a full disk.
mod outputs;
/// What a reference file or a web server may make any reading tool read (issue 61).
mod references;
/// Where writing tools may write (issue 61): never inside a dataset, over one only with --overwrite.
mod targets;
