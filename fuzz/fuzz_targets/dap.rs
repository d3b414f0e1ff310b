//! OPeNDAP's DAP2 documents and data answers: the DDS and DAS parsers, the XDR
//! decoder over the DDS the input starts with, and the netCDF view netcdf-c makes.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = nczarr::formats::dap::das::parse(&text);
    let _ = nczarr::formats::dap::parse_netrc(&text);
    let _ = nczarr::formats::dap::parse_cookie_jar(&text);
    // A data answer: the DDS, `Data:`, the XDR body.
    if let Some((dds, body)) = nczarr::formats::dap::xdr::split_answer(data) {
        if let Ok(dds) = nczarr::formats::dap::dds::parse(&String::from_utf8_lossy(dds)) {
            let _ = nczarr::formats::dap::xdr::decode(&dds.decls, body);
        }
    } else if let Ok(dds) = nczarr::formats::dap::dds::parse(&text) {
        let _ = nczarr::formats::dap::view_of(&dds, &text);
    }
});
