//! The netCDF file readers: classic (CDF-1, 2, 5) by our own header reader, netCDF-4
//! through the HDF5 reader, known by the first bytes as `nczdump` knows them.
#![no_main]
use libfuzzer_sys::fuzz_target;
use nczarr::formats::{sniff_at, FileKind};
use nczarr::formats::nc3::Nc3Source;
use nczarr::formats::nc4::Hdf5Source;

fuzz_target!(|data: &[u8]| {
    let file = nczarr_fuzz::MemFile::shared(data);
    match sniff_at(file.as_ref()) {
        Ok(Some(FileKind::Classic)) => {
            if let Ok(source) = Nc3Source::from_file(file) {
                nczarr_fuzz::dump(&source);
            }
        }
        Ok(Some(FileKind::Hdf5)) => {
            if let Ok(source) = Hdf5Source::from_file(file, false) {
                nczarr_fuzz::dump(&source);
            }
        }
        _ => {}
    }
});
