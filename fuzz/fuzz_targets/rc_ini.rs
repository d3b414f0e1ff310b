//! The `.ncrc` reader and the AWS config/credentials INI reader, with lookups.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut rc = nczarr::rc::RcEntries::default();
    rc.add_text("fuzz", &text);
    let target = nczarr::rc::RcTarget::new("https", "Host.example:9000", "bucket/key");
    for key in ["HTTP.VERBOSE", "AWS.PROFILE", "AWS.REGION", "ZARR.DIMENSION_SEPARATOR"] {
        let _ = rc.lookup(key, Some(&target));
        let _ = rc.lookup(key, None);
    }
    let ini = nczarr::cloud::s3::AwsIni::parse(&text);
    let names: Vec<String> = ini.profile_names().map(str::to_string).collect();
    for name in names.iter().chain(std::iter::once(&"default".to_string())) {
        let _ = ini.has_profile(name);
        for key in ["region", "aws_access_key_id", "endpoint_url", "source_profile"] {
            let _ = ini.get(name, key);
        }
    }
});
