//! OPeNDAP's documents and data answers: DAP2's DDS and DAS parsers, the XDR
//! decoder over the DDS the input starts with, and the netCDF view netcdf-c makes;
//! DAP4's DMR (XML) and its view, and a chunked data response taken apart whole.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = nczarr::formats::dap::das::parse(&text);
    let _ = nczarr::formats::dap::parse_netrc(&text);
    let _ = nczarr::formats::dap::parse_cookie_jar(&text);
    let _ = nczarr::formats::dap::d4::view_of(&text);
    let _ = nczarr::formats::dap::d4::check_response(data.to_vec());
    // A data answer: the DDS, `Data:`, the XDR body.
    if let Some((dds, body)) = nczarr::formats::dap::xdr::split_answer(data) {
        if let Ok(dds) = nczarr::formats::dap::dds::parse(&String::from_utf8_lossy(dds)) {
            let _ = nczarr::formats::dap::xdr::decode(&dds.decls, body);
        }
    } else if let Ok(dds) = nczarr::formats::dap::dds::parse(&text) {
        let _ = nczarr::formats::dap::view_of(&dds, &text);
    }
});
