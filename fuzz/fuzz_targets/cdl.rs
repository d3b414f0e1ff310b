//! The CDL parser and builder (nczgen's front end), then the writer and reader on
//! what it builds.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = nczarr::cdl::source_text(data.to_vec());
    let Ok(ast) = nczarr::cdl::parse(&text) else {
        return;
    };
    let Ok(compiled) = nczarr::cdl::compile(&text, &ast) else {
        return;
    };
    nczarr_fuzz::dump(&compiled);
    nczarr_fuzz::write_and_read(&compiled);
});
