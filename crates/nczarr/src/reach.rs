//! What a document read from elsewhere may make us read (issue 61). A kerchunk
//! reference file names the files its chunks are in, and a web server may answer with
//! a redirect: both are a stranger choosing what we fetch next. Followed blindly, a
//! reference file on a web server could make a dump print `/etc/passwd`, or fetch a
//! cloud machine's credentials from its metadata service, and a reference carrying
//! `#mode=s3` could have our S3 keys sign requests to a host of its choosing.
//!
//! The rules, decided here as pure functions before any request is made:
//! - a reference file read over the network may name local files only when the reader
//!   allows it ([`ReferenceOptions::allow_local_files`]: `--allow-local-refs`, or
//!   `#refs.local=allow` on the reference file's URL); one on this machine may;
//! - a reference or a redirect may lead to a loopback, link-local or cloud metadata
//!   address ([`HostClass`]) only from an address of the same class (a reference file
//!   on this machine counts as loopback): a test serving both from `127.0.0.1` works,
//!   a file on the internet cannot reach `169.254.169.254`;
//! - a reference reaches a store by its scheme and host only, never by a `#` fragment
//!   (refused): `s3://`, `gs://`, `az://` references and `https://` URLs on the clouds'
//!   own hosts use the reader's settings for that cloud (the endpoint and keys the
//!   reader configured); any other `http(s)://` reference is a plain request carrying
//!   no credentials, whatever store the reference file came from.
//!
//! Addresses are classed as the HTTP client will see them: URLs are parsed with the
//! `url` crate (WHATWG's rules, as `reqwest` parses them), so `http://2852039166/`,
//! `http://0xA9FEA9FE/`, `http://0251.0376.0251.0376/`, `http://[::ffff:a9fe:a9fe]/`
//! and `http://evil@169.254.169.254/` are all `169.254.169.254`. Host names are classed
//! by name (`localhost`, `metadata.google.internal`), and for a reference again by the
//! addresses DNS answers ([`check_resolved`]): `vm.example` answered with `127.0.0.1`
//! reaches nothing from a public reference file.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use crate::url::{DatasetUrl, StorageKind};

/// What kind of address a host is, for the rules above.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostClass {
    /// Anything not below: the internet, and private networks.
    Public,
    /// This machine: `127.0.0.0/8`, `::1`, `0.0.0.0/8` and `::` (which reach it too),
    /// `localhost` and `*.localhost`.
    Loopback,
    /// `169.254.0.0/16` and `fe80::/10`, other than the metadata services below.
    LinkLocal,
    /// A cloud's instance metadata service, which hands out the machine's credentials:
    /// `169.254.169.254` (AWS, Azure, GCP, OpenStack, Oracle, DigitalOcean),
    /// `169.254.170.2` (ECS), `169.254.170.23` (EKS), `169.254.0.23` (Tencent),
    /// `100.100.100.200` (Alibaba), `168.63.129.16` (Azure's WireServer),
    /// `fd00:ec2::254` and `fd00:ec2::23` (AWS over IPv6), and the names
    /// `metadata`, `metadata.google.internal`, `metadata.goog`, `instance-data`,
    /// `instance-data.ec2.internal`, `metadata.tencentyun.com`.
    Metadata,
}

impl fmt::Display for HostClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HostClass::Public => "a public address",
            HostClass::Loopback => "a loopback address",
            HostClass::LinkLocal => "a link-local address",
            HostClass::Metadata => "a cloud metadata service",
        })
    }
}

const METADATA_V4: [Ipv4Addr; 6] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(169, 254, 170, 23),
    Ipv4Addr::new(169, 254, 0, 23),
    Ipv4Addr::new(100, 100, 100, 200),
    Ipv4Addr::new(168, 63, 129, 16),
];

const METADATA_V6: [Ipv6Addr; 2] = [
    Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254),
    Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x23),
];

const METADATA_NAMES: [&str; 6] = [
    "metadata",
    "metadata.google.internal",
    "metadata.goog",
    "instance-data",
    "instance-data.ec2.internal",
    "metadata.tencentyun.com",
];

/// The class of an IPv4 address.
pub fn classify_v4(a: Ipv4Addr) -> HostClass {
    if METADATA_V4.contains(&a) {
        HostClass::Metadata
    } else if a.is_loopback() || a.octets()[0] == 0 {
        // 0.0.0.0/8 is "this network": a connection to 0.0.0.0 reaches this machine.
        HostClass::Loopback
    } else if a.is_link_local() {
        HostClass::LinkLocal
    } else {
        HostClass::Public
    }
}

/// The class of an IPv6 address; an IPv4 address inside one (mapped `::ffff:a.b.c.d`,
/// compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d`) is classed as that address.
pub fn classify_v6(a: Ipv6Addr) -> HostClass {
    let s = a.segments();
    let embedded_v4 = || {
        let [.., hi, lo] = s;
        Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo))
    };
    if a.is_loopback() || a.is_unspecified() {
        HostClass::Loopback
    } else if METADATA_V6.contains(&a) {
        HostClass::Metadata
    } else if let Some(v4) = a.to_ipv4_mapped() {
        classify_v4(v4)
    } else if s[..6] == [0; 6] || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        classify_v4(embedded_v4())
    } else if s[0] & 0xffc0 == 0xfe80 {
        HostClass::LinkLocal
    } else {
        HostClass::Public
    }
}

/// The class of a host name (not an address), by its name alone.
pub fn classify_name(name: &str) -> HostClass {
    // `localhost.` and `metadata.google.internal.` are the same names, fully qualified.
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    if name == "localhost"
        || name.ends_with(".localhost")
        || matches!(
            name.as_str(),
            "localhost.localdomain" | "ip6-localhost" | "ip6-loopback"
        )
    {
        HostClass::Loopback
    } else if METADATA_NAMES.contains(&name.as_str()) {
        HostClass::Metadata
    } else {
        HostClass::Public
    }
}

/// The class of an IP address.
pub fn classify_ip(ip: IpAddr) -> HostClass {
    match ip {
        IpAddr::V4(a) => classify_v4(a),
        IpAddr::V6(a) => classify_v6(a),
    }
}

/// The class of a host as the `url` crate parsed it.
pub fn classify_host(host: &url::Host<&str>) -> HostClass {
    match host {
        url::Host::Domain(d) => classify_name(d),
        url::Host::Ipv4(a) => classify_v4(*a),
        url::Host::Ipv6(a) => classify_v6(*a),
    }
}

/// The class of the host of the web URL `text`, and that host as a client will reach
/// it (`0xA9FEA9FE` is `169.254.169.254`).
///
/// # Errors
/// The parser's reason when `text` is not a URL with a host.
pub fn classify_url(text: &str) -> Result<(HostClass, String), String> {
    let parsed = url::Url::parse(text).map_err(|e| e.to_string())?;
    let host = parsed.host().ok_or_else(|| "no host".to_string())?;
    Ok((classify_host(&host), host.to_string()))
}

/// Where a reference file was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A file on this machine.
    Local,
    /// A server (a web server, or the endpoint of S3, GCS or Azure) of this class.
    Remote(HostClass),
}

impl Origin {
    /// The origin of a document fetched from the endpoint or web URL `address`.
    pub fn of_address(address: &str) -> Origin {
        // Unparseable: the client could not have fetched anything from it; public is
        // the class that allows the least.
        Origin::Remote(classify_url(address).map_or(HostClass::Public, |(class, _)| class))
    }

    /// The class of address this origin counts as: a file on this machine is as
    /// trusted as a server on loopback, no more.
    fn class(self) -> HostClass {
        match self {
            Origin::Local => HostClass::Loopback,
            Origin::Remote(class) => class,
        }
    }
}

/// True when a document from `from` may make us fetch from an address of class `to`:
/// a public address always, the others only from their own class.
pub fn may_reach(from: Origin, to: HostClass) -> bool {
    to == HostClass::Public || from.class() == to
}

/// Where one reference leads, as the reference store will open it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A file on this machine (absolute, or relative to a local reference file).
    Local(String),
    /// A URL: given as such, or a relative name under a remote reference file's URL.
    Remote(String),
}

/// What a reader allows the references of a reference file to name, beyond the rules
/// in the [module documentation](self).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReferenceOptions {
    /// Local files named by a reference file read over the network (http(s), S3, GCS,
    /// Azure): `--allow-local-refs`, `#refs.local=allow`. Off by default: such a file
    /// could otherwise make a dump print any file the user can read.
    pub allow_local_files: bool,
}

/// The fragment key that says what a remote reference file may name locally.
pub const LOCAL_REFS_KEY: &str = "refs.local";

impl ReferenceOptions {
    /// These options as the reference file's URL `url` changes them: `refs.local=allow`
    /// or `refs.local=refuse` in its fragment decides for that file.
    ///
    /// # Errors
    /// A message naming the key when its value is neither.
    pub fn for_url(self, url: &DatasetUrl) -> Result<ReferenceOptions, String> {
        match url.param(LOCAL_REFS_KEY) {
            None => Ok(self),
            Some(v) if v.eq_ignore_ascii_case("allow") => Ok(ReferenceOptions {
                allow_local_files: true,
            }),
            Some(v) if v.eq_ignore_ascii_case("refuse") => Ok(ReferenceOptions {
                allow_local_files: false,
            }),
            Some(v) => Err(format!(
                "{LOCAL_REFS_KEY} must be 'allow' or 'refuse', not '{v}'"
            )),
        }
    }
}

/// Why a reference, or a redirect, was not followed. Nothing was requested from where
/// it leads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Refusal {
    /// A local file named by a reference file read over the network.
    #[error("reference to local file '{path}' from a remote reference file or repository refused (--allow-local-refs or #refs.local=allow allows it)")]
    LocalFile {
        /// The file as the reference names it.
        path: String,
    },
    /// A loopback, link-local or metadata address named from elsewhere.
    #[error("reference to '{url}' refused: {host} is {class}, which a reference file may name only {}", from_where(*.class))]
    Address {
        /// The reference's URL.
        url: String,
        /// Its host, as a client would reach it.
        host: String,
        /// What kind of address that is.
        class: HostClass,
    },
    /// A reference's URL with a `#` fragment, which would choose how a store is
    /// reached (`mode=s3`, `aws.profile`, ...).
    #[error("reference to '{url}' refused: a reference's URL may not have a '#' fragment (how a store is reached, mode=s3, aws.profile, ..., is the reader's setting, not the reference file's)")]
    Fragment {
        /// The reference's URL.
        url: String,
    },
    /// A reference's URL that cannot be understood.
    #[error("reference to '{url}' refused: {reason}")]
    Malformed {
        /// The reference's URL.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A host name of a reference whose addresses, as DNS answers, are all of a class
    /// the reference file may not name.
    #[error("host '{host}' refused: it resolves to {address}, {class}, which a reference file may name only {}", from_where(*.class))]
    Resolved {
        /// The host name.
        host: String,
        /// The first address DNS gave for it.
        address: IpAddr,
        /// What kind of address that is.
        class: HostClass,
    },
    /// A web server's redirect to a loopback, link-local or metadata address that the
    /// request did not start from.
    #[error("redirect from '{from}' to '{to}' refused: {host} is {class}, which a redirect may lead to only from such an address")]
    Redirect {
        /// The URL first asked for.
        from: String,
        /// Where the server sent us.
        to: String,
        /// The host of `to`, as a client would reach it.
        host: String,
        /// What kind of address that is.
        class: HostClass,
    },
}

/// Where a reference file must be for its references to name an address of `class`.
fn from_where(class: HostClass) -> &'static str {
    match class {
        HostClass::Loopback => "from this machine or a loopback address",
        HostClass::LinkLocal => "from a link-local address",
        HostClass::Metadata => "from a metadata service",
        HostClass::Public => "from anywhere",
    }
}

/// Decide whether a reference file read from `origin` may lead to `target`.
///
/// # Errors
/// The [`Refusal`] that says which rule refuses it.
pub fn check_reference(
    origin: Origin,
    target: &Target,
    options: ReferenceOptions,
) -> Result<(), Refusal> {
    match target {
        Target::Local(path) => match origin {
            Origin::Remote(_) if !options.allow_local_files => {
                Err(Refusal::LocalFile { path: path.clone() })
            }
            _ => Ok(()),
        },
        Target::Remote(url) => {
            if url.contains('#') {
                return Err(Refusal::Fragment { url: url.clone() });
            }
            let malformed = |reason: String| Refusal::Malformed {
                url: url.clone(),
                reason,
            };
            let parsed = DatasetUrl::parse(url).map_err(|e| malformed(e.to_string()))?;
            // S3, GCS and Azure go to the endpoint the reader configured (or the
            // cloud's own): the reference names a bucket there, not a host.
            if parsed.storage != StorageKind::Http {
                return Ok(());
            }
            let (class, host) = classify_url(url).map_err(malformed)?;
            if may_reach(origin, class) {
                Ok(())
            } else {
                Err(Refusal::Address {
                    url: url.clone(),
                    host,
                    class,
                })
            }
        }
    }
}

/// The addresses DNS gave for `host` (a reference's) that a reference file read from
/// `origin` may reach, in their order.
///
/// # Errors
/// [`Refusal::Resolved`] when there were addresses and none may be reached.
pub fn check_resolved(
    origin: Origin,
    host: &str,
    found: Vec<IpAddr>,
) -> Result<Vec<IpAddr>, Refusal> {
    let first = found.first().copied();
    let kept: Vec<IpAddr> = found
        .into_iter()
        .filter(|ip| may_reach(origin, classify_ip(*ip)))
        .collect();
    match first {
        Some(address) if kept.is_empty() => Err(Refusal::Resolved {
            host: host.to_string(),
            address,
            class: classify_ip(address),
        }),
        _ => Ok(kept),
    }
}

/// Decide whether a web server's redirect from `from` (the URL first asked for) to
/// `to` may be followed.
///
/// # Errors
/// [`Refusal::Redirect`] when `to` is a loopback, link-local or metadata address and
/// `from` is not of the same class.
pub fn check_redirect(from: &url::Url, to: &url::Url) -> Result<(), Refusal> {
    let class_of = |u: &url::Url| u.host().map_or(HostClass::Public, |h| classify_host(&h));
    let class = class_of(to);
    if may_reach(Origin::Remote(class_of(from)), class) {
        Ok(())
    } else {
        Err(Refusal::Redirect {
            from: from.to_string(),
            to: to.to_string(),
            host: to.host_str().unwrap_or("").to_string(),
            class,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(url: &str) -> HostClass {
        classify_url(url).unwrap_or_else(|e| panic!("{url}: {e}")).0
    }

    #[test]
    fn metadata_services_in_every_spelling_a_client_accepts() {
        for url in [
            "http://169.254.169.254/latest/meta-data/",
            "http://2852039166/",
            "http://0xA9FEA9FE/",
            "http://0xa9.0xfe.0xa9.0xfe/",
            "http://0251.0376.0251.0376/",
            "http://169.254.43518/",
            "http://169.254.169.254./",
            "http://user:pw@169.254.169.254:80/x",
            "http://[::ffff:169.254.169.254]/",
            "http://[::ffff:a9fe:a9fe]/",
            "http://[64:ff9b::a9fe:a9fe]/",
            "http://[fd00:ec2::254]/",
            "http://169.254.170.2/v2/credentials",
            "http://100.100.100.200/latest/meta-data",
            "http://168.63.129.16/",
            "http://metadata.google.internal/computeMetadata/v1/",
            "http://METADATA.GOOGLE.INTERNAL./",
            "http://metadata/",
            "http://instance-data.ec2.internal/",
        ] {
            assert_eq!(class(url), HostClass::Metadata, "{url}");
        }
        assert_eq!(
            classify_url("http://0xA9FEA9FE/").unwrap().1,
            "169.254.169.254"
        );
    }

    #[test]
    fn loopback_link_local_and_public() {
        for url in [
            "http://127.0.0.1:8000/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f000001/",
            "http://0.0.0.0/",
            "http://0/",
            "http://[::1]/",
            "http://[::]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[0:0:0:0:0:ffff:7f00:1]/",
            "http://localhost/",
            "http://LocalHost./",
            "http://a.b.localhost/",
        ] {
            assert_eq!(class(url), HostClass::Loopback, "{url}");
        }
        for url in [
            "http://169.254.1.1/",
            "http://[fe80::1]/",
            "http://[febf::1]/",
        ] {
            assert_eq!(class(url), HostClass::LinkLocal, "{url}");
        }
        for url in [
            "https://example.com/x.nc",
            "http://192.0.2.2:80/",
            "http://10.0.0.1/",
            "http://[2001:db8::1]/",
            "http://[fec0::1]/",
            "http://169.255.169.254/",
            "http://localhost.example.com/",
            "http://metadata.example.com/",
            // WHATWG: `\` is `/` in web URLs, so the host is evil.example.
            "http://evil.example\\@169.254.169.254/",
        ] {
            assert_eq!(class(url), HostClass::Public, "{url}");
        }
    }

    #[test]
    fn a_special_address_is_reached_only_from_its_own_class() {
        use HostClass::*;
        let cases = [
            (Origin::Local, Public, true),
            (Origin::Local, Loopback, true),
            (Origin::Local, LinkLocal, false),
            (Origin::Local, Metadata, false),
            (Origin::Remote(Public), Public, true),
            (Origin::Remote(Public), Loopback, false),
            (Origin::Remote(Public), LinkLocal, false),
            (Origin::Remote(Public), Metadata, false),
            (Origin::Remote(Loopback), Loopback, true),
            (Origin::Remote(Loopback), Metadata, false),
            (Origin::Remote(LinkLocal), LinkLocal, true),
            (Origin::Remote(LinkLocal), Metadata, false),
            (Origin::Remote(Metadata), Metadata, true),
        ];
        for (from, to, want) in cases {
            assert_eq!(may_reach(from, to), want, "{from:?} -> {to:?}");
        }
    }

    #[test]
    fn local_files_only_from_local_reference_files_unless_allowed() {
        let local = Target::Local("/etc/passwd".into());
        let remote = Origin::Remote(HostClass::Public);
        let none = ReferenceOptions::default();
        let allow = ReferenceOptions {
            allow_local_files: true,
        };
        assert_eq!(check_reference(Origin::Local, &local, none), Ok(()));
        assert_eq!(check_reference(remote, &local, allow), Ok(()));
        let e = check_reference(remote, &local, none).unwrap_err();
        assert_eq!(
            e.to_string(),
            "reference to local file '/etc/passwd' from a remote reference file or repository \
             refused (--allow-local-refs or #refs.local=allow allows it)"
        );
        // Loopback origins are remote too: a web server on this machine is still a
        // server, whose files need not be the user's.
        let loop_origin = Origin::Remote(HostClass::Loopback);
        assert!(check_reference(loop_origin, &local, none).is_err());
    }

    #[test]
    fn remote_references_by_address_and_without_fragments() {
        let public = Origin::Remote(HostClass::Public);
        let none = ReferenceOptions::default();
        let check = |origin, url: &str| check_reference(origin, &Target::Remote(url.into()), none);
        assert_eq!(check(public, "https://example.com/a.nc"), Ok(()));
        // Clouds by scheme go to the reader's endpoint, whatever the bucket's name.
        assert_eq!(check(public, "s3://169.254.169.254/k"), Ok(()));
        assert_eq!(check(public, "gs://b/k"), Ok(()));
        let e = check(public, "http://0xA9FEA9FE/latest/meta-data/").unwrap_err();
        assert_eq!(
            e.to_string(),
            "reference to 'http://0xA9FEA9FE/latest/meta-data/' refused: 169.254.169.254 is a \
             cloud metadata service, which a reference file may name only from a metadata service"
        );
        let e = check(public, "http://127.0.0.1:9/x").unwrap_err();
        assert!(
            e.to_string().ends_with(
                "127.0.0.1 is a loopback address, which a reference file may name only from \
                 this machine or a loopback address"
            ),
            "{e}"
        );
        assert_eq!(check(Origin::Local, "http://127.0.0.1:9/x"), Ok(()));
        assert_eq!(
            check(Origin::Remote(HostClass::Loopback), "http://localhost:9/x"),
            Ok(())
        );
        assert!(check(Origin::Local, "http://169.254.169.254/").is_err());
        // A fragment could say mode=s3 and send our keys to the host it names.
        let e = check(Origin::Local, "https://evil.example/b/k#mode=s3").unwrap_err();
        assert!(matches!(e, Refusal::Fragment { .. }), "{e}");
        assert!(matches!(
            check(public, "ftp://x/y").unwrap_err(),
            Refusal::Malformed { .. }
        ));
    }

    #[test]
    fn redirects_keep_to_their_class() {
        let u = |s: &str| url::Url::parse(s).unwrap();
        assert_eq!(
            check_redirect(&u("https://a.example/x"), &u("https://b.example/y")),
            Ok(())
        );
        assert_eq!(
            check_redirect(&u("http://127.0.0.1:1/x"), &u("http://localhost:2/y")),
            Ok(())
        );
        let e = check_redirect(
            &u("http://127.0.0.1:1/x"),
            &u("http://169.254.169.254/latest/meta-data/"),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "redirect from 'http://127.0.0.1:1/x' to 'http://169.254.169.254/latest/meta-data/' \
             refused: 169.254.169.254 is a cloud metadata service, which a redirect may lead to \
             only from such an address"
        );
        assert!(check_redirect(&u("https://a.example/x"), &u("http://[::1]:9/")).is_err());
    }

    #[test]
    fn names_are_checked_again_by_the_addresses_they_resolve_to() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let public = Origin::Remote(HostClass::Public);
        let e = check_resolved(public, "vm.example", vec![ip("127.0.0.1")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "host 'vm.example' refused: it resolves to 127.0.0.1, a loopback address, which a \
             reference file may name only from this machine or a loopback address"
        );
        let e = check_resolved(public, "m.example", vec![ip("::ffff:169.254.169.254")]);
        assert!(matches!(
            e,
            Err(Refusal::Resolved {
                class: HostClass::Metadata,
                ..
            })
        ));
        // The addresses it may reach are kept; none found is for the client to say.
        let both = vec![ip("127.0.0.1"), ip("192.0.2.7")];
        assert_eq!(
            check_resolved(public, "h", both.clone()),
            Ok(vec![ip("192.0.2.7")])
        );
        assert_eq!(check_resolved(Origin::Local, "h", both.clone()), Ok(both));
        assert_eq!(check_resolved(public, "h", vec![]), Ok(vec![]));
    }

    #[test]
    fn the_url_fragment_decides_for_its_file() {
        let url = |s: &str| DatasetUrl::parse(s).unwrap();
        let none = ReferenceOptions::default();
        let allow = ReferenceOptions {
            allow_local_files: true,
        };
        assert_eq!(
            none.for_url(&url("https://h/r.json#mode=kerchunk&refs.local=allow")),
            Ok(allow)
        );
        assert_eq!(
            allow.for_url(&url("https://h/r.json#refs.local=refuse")),
            Ok(none)
        );
        assert_eq!(allow.for_url(&url("https://h/r.json")), Ok(allow));
        assert_eq!(
            none.for_url(&url("https://h/r.json#refs.local=yes")),
            Err("refs.local must be 'allow' or 'refuse', not 'yes'".into())
        );
    }
}
