//! The resolver's decision table: each source against the ones it must beat or yield to.

use super::*;
use crate::cloud::DEFAULT_CONCURRENCY;

/// Environment variables of a table row.
type Env<'a> = &'a [(&'a str, &'a str)];
/// Owned environment variables of a table row.
type EnvVec<'a> = Vec<(&'a str, &'a str)>;

const CONFIG: &str = "[default]\nregion = us-west-1\n\
    [profile dev]\nregion = eu-west-1\n\
    [profile old]\naws_region = ap-south-1\n\
    [profile local]\nendpoint_url = http://127.0.0.1:9000\n\
    [profile nested]\ns3 =\n  endpoint_url = https://nested.example\n\
    [profile keyless]\nregion = eu-north-1\n";
const CREDENTIALS: &str = "[default]\naws_access_key_id = AKIADEFAULT0001\naws_secret_access_key = default-secret\n\
    [dev]\naws_access_key_id = AKIADEV000000002\naws_secret_access_key = dev-secret\naws_session_token = dev-token\n\
    [local]\naws_access_key_id = AKIALOCAL0000003\naws_secret_access_key = local-secret\n";

fn inputs(vars: &[(&str, &str)], rc: &str) -> AwsInputs {
    let mut entries = RcEntries::default();
    entries.add_text("rc", rc);
    AwsInputs {
        vars: vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        config: AwsIni::parse(CONFIG),
        credentials: AwsIni::parse(CREDENTIALS),
        rc: entries,
        notes: Vec::new(),
    }
}

fn resolve_str(url: &str, inp: &AwsInputs) -> Result<S3Settings, AwsError> {
    resolve(&DatasetUrl::parse(url).unwrap(), inp)
}

fn key_id(s: &S3Settings) -> Option<&str> {
    match &s.credentials {
        Credentials::Keys { access_key_id, .. } => Some(access_key_id),
        Credentials::Anonymous => None,
    }
}

#[test]
fn profile_order() {
    // (url, env, rc) -> profile
    let table: &[(&str, Env, &str, &str)] = &[
        ("s3://b/k", &[], "", "default"),
        ("s3://b/k", &[("AWS_PROFILE", "dev")], "", "dev"),
        (
            "s3://b/k",
            &[("AWS_PROFILE", "dev")],
            "AWS.PROFILE=local\n",
            "local",
        ),
        (
            "s3://b/k#mode=nczarr,s3&aws.profile=old",
            &[("AWS_PROFILE", "dev")],
            "AWS.PROFILE=local\n",
            "old",
        ),
        // URL-qualified rc entries beat unqualified ones for their URL only.
        (
            "s3://b/k",
            &[],
            "AWS.PROFILE=dev\n[s3://b]AWS.PROFILE=local\n",
            "local",
        ),
        (
            "s3://other/k",
            &[],
            "AWS.PROFILE=dev\n[s3://b]AWS.PROFILE=local\n",
            "dev",
        ),
        ("s3://b/k#aws.profile=none", &[], "", "none"),
    ];
    for (url, env, rc, want) in table {
        // Profile 'local' has a plain-HTTP endpoint.
        let env = [*env, &[("AWS_ALLOW_HTTP", "true")]].concat();
        let s = resolve_str(url, &inputs(&env, rc)).unwrap();
        assert_eq!(s.profile, *want, "{url} {env:?} {rc:?}");
    }
}

#[test]
fn unknown_profiles_are_errors() {
    for (url, env, rc, from) in [
        (
            "s3://b/k#aws.profile=nope",
            vec![],
            "",
            "the URL's aws.profile",
        ),
        ("s3://b/k", vec![("AWS_PROFILE", "nope")], "", "AWS_PROFILE"),
        (
            "s3://b/k",
            vec![],
            "AWS.PROFILE=nope\n",
            "AWS.PROFILE at rc:1",
        ),
    ] {
        let e = resolve_str(url, &inputs(&env, rc)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("AWS profile 'nope' (from {from}) is not defined in the AWS config or credentials file")
        );
    }
}

#[test]
fn credentials_order() {
    let env_keys: &[(&str, &str)] = &[
        ("AWS_ACCESS_KEY_ID", "AKIAENV000000004"),
        ("AWS_SECRET_ACCESS_KEY", "env-secret"),
    ];
    let with_profile_var: Vec<(&str, &str)> = env_keys
        .iter()
        .copied()
        .chain([("AWS_PROFILE", "dev")])
        .collect();
    // (url, env) -> access key id (None = unsigned)
    let table: Vec<(&str, Env, Option<&str>)> = vec![
        ("s3://b/k", &[], Some("AKIADEFAULT0001")),
        // Environment keys beat the implicit default profile and AWS_PROFILE (as the AWS CLI).
        ("s3://b/k", env_keys, Some("AKIAENV000000004")),
        ("s3://b/k", &with_profile_var, Some("AKIAENV000000004")),
        // A profile named in the URL beats the environment.
        (
            "s3://b/k#aws.profile=dev",
            env_keys,
            Some("AKIADEV000000002"),
        ),
        // ... unless it has no keys of its own.
        (
            "s3://b/k#aws.profile=keyless",
            env_keys,
            Some("AKIAENV000000004"),
        ),
        ("s3://b/k#aws.profile=keyless", &[], None),
        // Profile none (4.9) and no (4.10): unsigned, whatever else is set.
        ("s3://b/k#aws.profile=none", env_keys, None),
        ("s3://b/k#aws.profile=no", env_keys, None),
    ];
    for (url, env, want) in table {
        let s = resolve_str(url, &inputs(env, "")).unwrap();
        assert_eq!(key_id(&s), want, "{url} {env:?}");
    }
    // Session tokens travel with their keys.
    let s = resolve_str("s3://b/k#aws.profile=dev", &inputs(&[], "")).unwrap();
    let Credentials::Keys { session_token, .. } = &s.credentials else {
        panic!()
    };
    assert_eq!(
        session_token.as_ref().map(Secret::expose),
        Some("dev-token")
    );
    let s = resolve_str(
        "s3://b/k",
        &inputs(
            &[env_keys, &[("AWS_SESSION_TOKEN", "env-token")]].concat(),
            "",
        ),
    )
    .unwrap();
    let Credentials::Keys { session_token, .. } = &s.credentials else {
        panic!()
    };
    assert_eq!(
        session_token.as_ref().map(Secret::expose),
        Some("env-token")
    );
    // Nothing configured at all: unsigned, never the instance metadata service.
    let bare = AwsInputs::default();
    let s = resolve(&DatasetUrl::parse("s3://b/k").unwrap(), &bare).unwrap();
    assert_eq!(s.credentials, Credentials::Anonymous);
}

#[test]
fn region_order() {
    let env: &[(&str, &str)] = &[("AWS_REGION", "env-1"), ("AWS_DEFAULT_REGION", "env-2")];
    // (url, env, rc) -> region
    let table: &[(&str, Env, &str, &str)] = &[
        ("s3://b/k#aws.profile=none", &[], "", "us-east-1"),
        (
            "s3://b/k#aws.profile=none",
            &[("AWS_DEFAULT_REGION", "env-2")],
            "",
            "env-2",
        ),
        ("s3://b/k#aws.profile=none", env, "", "env-1"),
        (
            "s3://b/k#aws.profile=none",
            env,
            "AWS.REGION=rc-1\n",
            "rc-1",
        ),
        // The profile's region beats rc and environment.
        ("s3://b/k", env, "AWS.REGION=rc-1\n", "us-west-1"),
        (
            "s3://b/k#aws.profile=dev",
            env,
            "AWS.REGION=rc-1\n",
            "eu-west-1",
        ),
        // netcdf-c 4.9's key name.
        ("s3://b/k#aws.profile=old", env, "", "ap-south-1"),
        // The URL's host beats the profile; the fragment beats everything.
        (
            "https://b.s3.ca-central-1.amazonaws.com/k",
            env,
            "AWS.REGION=rc-1\n",
            "ca-central-1",
        ),
        (
            "https://b.s3.ca-central-1.amazonaws.com/k#aws.region=sa-east-1",
            env,
            "",
            "sa-east-1",
        ),
    ];
    for (url, env, rc, want) in table {
        let s = resolve_str(url, &inputs(env, rc)).unwrap();
        assert_eq!(s.region, *want, "{url} {env:?} {rc:?}");
    }
}

#[test]
fn endpoint_order_and_plain_http() {
    let allow: &[(&str, &str)] = &[("AWS_ALLOW_HTTP", "true")];
    // (url, env) -> endpoint
    let table: Vec<(&str, EnvVec, &str)> = vec![
        ("s3://b/k", vec![], "https://s3.us-west-1.amazonaws.com"),
        (
            "s3://b/k#aws.region=eu-west-2",
            vec![],
            "https://s3.eu-west-2.amazonaws.com",
        ),
        (
            "s3://b/k#aws.profile=nested",
            vec![],
            "https://nested.example",
        ),
        (
            "s3://b/k#aws.profile=local",
            allow.to_vec(),
            "http://127.0.0.1:9000",
        ),
        (
            "s3://b/k#aws.profile=local",
            [allow, &[("AWS_ENDPOINT_URL", "http://env:1/")]].concat(),
            "http://env:1",
        ),
        (
            "s3://b/k",
            [
                allow,
                &[
                    ("AWS_ENDPOINT_URL", "http://env:1"),
                    ("AWS_ENDPOINT_URL_S3", "http://env-s3:2"),
                ],
            ]
            .concat(),
            "http://env-s3:2",
        ),
        // The URL's own host beats everything, and its http:// needs no permission.
        (
            "http://127.0.0.1:8333/b/k#mode=nczarr,s3",
            vec![("AWS_ENDPOINT_URL", "https://env:1")],
            "http://127.0.0.1:8333",
        ),
    ];
    for (url, env, want) in table {
        let s = resolve_str(url, &inputs(&env, "")).unwrap();
        assert_eq!(s.endpoint, want, "{url} {env:?}");
    }
    let e = resolve_str("s3://b/k#aws.profile=local", &inputs(&[], "")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "endpoint http://127.0.0.1:9000 (from profile 'local') is plain HTTP; set AWS_ALLOW_HTTP=true to allow it"
    );
}

#[test]
fn concurrency_setting() {
    let s = resolve_str("s3://b/k", &inputs(&[], "")).unwrap();
    assert_eq!(s.concurrency, DEFAULT_CONCURRENCY);
    let s = resolve_str("s3://b/k", &inputs(&[("NCZARR_S3_CONCURRENCY", "4")], "")).unwrap();
    assert_eq!(s.concurrency, 4);
    let s = resolve_str(
        "s3://b/k#concurrency=1",
        &inputs(&[("NCZARR_S3_CONCURRENCY", "4")], ""),
    )
    .unwrap();
    assert_eq!(s.concurrency, 1);
    let e = resolve_str("s3://b/k#concurrency=0", &inputs(&[], "")).unwrap_err();
    assert!(e.to_string().contains("from 1 to 1024"), "{e}");
}

#[test]
fn secrets_never_show() {
    let env: &[(&str, &str)] = &[
        ("AWS_ACCESS_KEY_ID", "AKIAENV000000004"),
        ("AWS_SECRET_ACCESS_KEY", "env-secret"),
        ("AWS_SESSION_TOKEN", "env-token"),
    ];
    for url in ["s3://b/k", "s3://b/k#aws.profile=dev"] {
        let s = resolve_str(url, &inputs(env, "")).unwrap();
        let shown = format!("{s:?} {}", s.decisions.join(" "));
        for secret in [
            "env-secret",
            "env-token",
            "dev-secret",
            "dev-token",
            "default-secret",
        ] {
            assert!(!shown.contains(secret), "{secret} shown in {shown}");
        }
        assert!(shown.contains("****"));
    }
    let s = resolve_str("s3://b/k#aws.profile=dev", &inputs(&[], "")).unwrap();
    assert!(s
        .decisions
        .iter()
        .any(|d| d == "keys ...0002 from profile 'dev' with a session token"));
}

#[test]
fn files_are_found_from_the_environment() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".aws")).unwrap();
    std::fs::write(
        home.join(".aws/credentials"),
        "[p]\naws_access_key_id=AKIAFILE00000005\naws_secret_access_key=s\n",
    )
    .unwrap();
    std::fs::write(home.join(".ncrc"), "AWS.PROFILE=p\n").unwrap();
    let other = dir.path().join("elsewhere.ini");
    std::fs::write(&other, "[profile p]\nregion=eu-central-1\n").unwrap();
    let vars: BTreeMap<String, String> = [
        ("HOME".to_string(), home.display().to_string()),
        ("AWS_CONFIG_FILE".to_string(), other.display().to_string()),
    ]
    .into();
    let inp = AwsInputs::load(vars, None);
    let s = resolve(&DatasetUrl::parse("s3://b/k").unwrap(), &inp).unwrap();
    assert_eq!(s.profile, "p");
    assert_eq!(key_id(&s), Some("AKIAFILE00000005"));
    assert_eq!(s.region, "eu-central-1");
    assert!(inp
        .notes
        .iter()
        .any(|n| n.starts_with("read ") && n.ends_with(".ncrc")));
}
