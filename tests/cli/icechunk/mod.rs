//! Icechunk repositories: those icechunk-python, xarray and VirtualiZarr write read by
//! every tool with the values xarray reads; those nczcopy writes (copies, appends,
//! replacements) read by icechunk-python and xarray as the inputs; versions, history,
//! refusals, killed runs.

/// Reading: versions, virtual chunks, what is refused, history and references.
mod reading;
/// Writing: copies, appends and replacements as snapshots; killed runs.
mod writing;
