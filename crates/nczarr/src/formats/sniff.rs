//! Which format a file holds, from its first bytes: netCDF classic (`CDF` and a
//! version byte) or HDF5 (netCDF-4; its signature may follow a user block). A Zarr
//! store is told by its keys instead (`zarr::detect`, which also tells NCZarr's
//! generations apart).

/// What a file is, from its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A classic-format netCDF file.
    Classic,
    /// An HDF5 file (netCDF-4): the signature at byte 0, 512, 1024, 2048...
    Hdf5,
}

/// The kind of the file at `path`, or `None` when it is neither.
///
/// # Errors
/// [`std::io::Error`] when the file cannot be read.
pub fn sniff_file(path: &std::path::Path) -> std::io::Result<Option<FileKind>> {
    let file = crate::store::LocalFile::open(path).map_err(std::io::Error::other)?;
    sniff_at(&file).map_err(std::io::Error::other)
}

/// What kind of netCDF file `file` is (local, or remote by byte ranges), from its first
/// bytes; `None` when it is neither.
///
/// # Errors
/// When the file cannot be read.
pub fn sniff_at(
    file: &dyn crate::store::ReadAt,
) -> Result<Option<FileKind>, crate::store::StoreError> {
    const HDF5: &[u8; 8] = b"\x89HDF\r\n\x1a\n";
    let len = file.len();
    let mut head = [0u8; 8];
    let n = head.len().min(usize::try_from(len).unwrap_or(usize::MAX));
    file.read_at(0, &mut head[..n])?;
    if super::nc3::header::sniff(&head[..n]).is_some() {
        return Ok(Some(FileKind::Classic));
    }
    // HDF5 allows a user block before the superblock: the signature is searched at 0
    // and at each power of two from 512 on.
    let mut at = 0u64;
    while at.saturating_add(8) <= len {
        file.read_at(at, &mut head)?;
        if &head == HDF5 {
            return Ok(Some(FileKind::Hdf5));
        }
        at = if at == 0 { 512 } else { at.saturating_mul(2) };
    }
    Ok(None)
}
