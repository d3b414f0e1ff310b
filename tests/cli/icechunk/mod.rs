//! Icechunk repositories: those icechunk-python, xarray and VirtualiZarr write read by
//! every tool with the values xarray reads; those nczcopy writes (copies, appends,
//! replacements) read by icechunk-python and xarray as the inputs; versions, history,
//! refusals, killed runs.

/// On GCS and Azure: written, appended, read, replaced.
mod clouds;
/// Reading: versions, virtual chunks, what is refused, history and references.
mod reading;
/// Virtual references to files on a web server and in an S3 bucket.
mod remote_files;
/// On S3: written, appended, read by icechunk-python; local references refused.
mod s3;
/// Writing: copies, appends and replacements as snapshots; killed runs.
mod writing;
