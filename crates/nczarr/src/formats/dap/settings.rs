//! How an OPeNDAP server is reached, as netcdf-c's users set it up: the `HTTP.*` keys
//! of `.ncrc`, `.daprc` and `.dodsrc` (netcdf-c's search order, host-qualified
//! entries first), `.netrc` logins for basic authentication, and a cookie jar file.
//! Reading the files is [`HttpSettings::load`]; the rest are pure functions of text.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::rc::{rc_paths, RcEntries, RcTarget};

/// A login for one host, from `.netrc` or `HTTP.CREDENTIALS.*`.
#[derive(Clone, PartialEq, Eq)]
pub struct Login {
    /// The host it is for (`urs.earthdata.nasa.gov`); `None` for `.netrc`'s
    /// `default` and for `HTTP.CREDENTIALS.*`, which go to the dataset's host only.
    pub machine: Option<String>,
    /// The user name.
    pub user: String,
    /// The password: never printed.
    pub password: String,
}

impl std::fmt::Debug for Login {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Login")
            .field("machine", &self.machine)
            .field("user", &self.user)
            .finish_non_exhaustive()
    }
}

/// How a server is reached: `.ncrc`'s `HTTP.*` keys, in the library's terms.
#[derive(Debug, Clone)]
pub struct HttpSettings {
    /// `HTTP.USERAGENT`.
    pub user_agent: Option<String>,
    /// `HTTP.TIMEOUT` (seconds): the most a request waits for its next bytes.
    pub timeout: Duration,
    /// `HTTP.CONNECTTIMEOUT` (seconds).
    pub connect_timeout: Duration,
    /// `HTTP.SSL.VERIFYPEER=0` turns certificate checks off.
    pub verify_peer: bool,
    /// `HTTP.PROXY.SERVER`: every request through this proxy.
    pub proxy: Option<String>,
    /// Logins by host (`.netrc`, named by `HTTP.NETRC` or `~/.netrc`) and for the
    /// dataset's own host (`HTTP.CREDENTIALS.USER`/`PASSWORD`).
    pub logins: Vec<Login>,
    /// Cookies read from `HTTP.COOKIEJAR` (`host`, `name=value`).
    pub cookies: Vec<(String, String)>,
    /// The files read, for `NCTRACING`.
    pub notes: Vec<String>,
}

impl Default for HttpSettings {
    fn default() -> HttpSettings {
        HttpSettings {
            user_agent: None,
            timeout: Duration::from_secs(120),
            connect_timeout: Duration::from_secs(10),
            verify_peer: true,
            proxy: None,
            logins: Vec::new(),
            cookies: Vec::new(),
            notes: Vec::new(),
        }
    }
}

impl HttpSettings {
    /// The settings for a server at `scheme://host/path`, from the environment
    /// (`HOME`, `NCRCENV_RC`, `NCRCENV_HOME`, `NCRCENV_IGNORE`) and the files it names.
    pub fn load(scheme: &str, host: &str, path: &str) -> HttpSettings {
        let vars: BTreeMap<String, String> = std::env::vars().collect();
        let cwd = std::env::current_dir().ok();
        let mut rc = RcEntries::default();
        let mut notes = Vec::new();
        for p in rc_paths(&vars, cwd.as_deref()) {
            if let Ok(text) = std::fs::read_to_string(&p) {
                notes.push(format!("read {}", p.display()));
                rc.add_text(&p.display().to_string(), &text);
            }
        }
        let target = RcTarget::new(scheme, host, path);
        let home = vars.get("HOME").map(PathBuf::from);
        let mut s = HttpSettings::from_rc(&rc, &target, home.as_deref(), &mut |p: &Path| {
            std::fs::read_to_string(p).ok()
        });
        s.notes.splice(0..0, notes);
        s
    }

    /// The settings `rc` gives `target`; `read` reads the `.netrc` and cookie files
    /// (`~/.netrc` from `home` when `HTTP.NETRC` names none).
    pub fn from_rc(
        rc: &RcEntries,
        target: &RcTarget,
        home: Option<&Path>,
        read: &mut dyn FnMut(&Path) -> Option<String>,
    ) -> HttpSettings {
        let get = |k: &str| {
            rc.lookup(k, Some(target))
                .map(|e| e.value.trim().to_string())
        };
        let secs = |k: &str| {
            get(k)
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&n| n > 0)
                .map(Duration::from_secs)
        };
        let mut s = HttpSettings {
            user_agent: get("HTTP.USERAGENT").filter(|v| !v.is_empty()),
            ..HttpSettings::default()
        };
        if let Some(t) = secs("HTTP.TIMEOUT") {
            s.timeout = t;
        }
        if let Some(t) = secs("HTTP.CONNECTTIMEOUT") {
            s.connect_timeout = t;
        }
        s.verify_peer = !matches!(
            get("HTTP.SSL.VERIFYPEER").as_deref(),
            Some("0" | "false" | "no")
        );
        s.proxy = get("HTTP.PROXY.SERVER").filter(|v| !v.is_empty());
        let netrc = get("HTTP.NETRC")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".netrc")));
        if let Some(path) = netrc {
            if let Some(text) = read(&path) {
                s.notes.push(format!("read {}", path.display()));
                s.logins.extend(parse_netrc(&text));
            }
        }
        let user = get("HTTP.CREDENTIALS.USER");
        let password = get("HTTP.CREDENTIALS.PASSWORD");
        let pair = get("HTTP.CREDENTIALS.USERPASSWORD").and_then(|v| {
            v.split_once(':')
                .map(|(u, p)| (u.to_string(), p.to_string()))
        });
        if let Some((user, password)) = user.zip(password).or(pair) {
            s.logins.insert(
                0,
                Login {
                    machine: Some(target.host.clone()),
                    user,
                    password,
                },
            );
        }
        if let Some(jar) = get("HTTP.COOKIEJAR").filter(|v| !v.is_empty()) {
            if let Some(text) = read(Path::new(&jar)) {
                s.notes.push(format!("read {jar}"));
                s.cookies = parse_cookie_jar(&text);
            }
        }
        s
    }

    /// The login for `host` (a name, or `name:port`): the one `.netrc` names it in,
    /// else `.netrc`'s `default` when `host` is the dataset's own (a login is never
    /// sent to a host it was not written for).
    pub fn login_for(&self, host: &str, dataset_host: &str) -> Option<&Login> {
        let bare = host.split(':').next().unwrap_or(host);
        self.logins
            .iter()
            .find(|l| {
                l.machine
                    .as_deref()
                    .is_some_and(|m| m.eq_ignore_ascii_case(host) || m.eq_ignore_ascii_case(bare))
            })
            .or_else(|| {
                self.logins
                    .iter()
                    .find(|l| l.machine.is_none() && host.eq_ignore_ascii_case(dataset_host))
            })
    }
}

/// The logins of a `.netrc` file: `machine H login U password P` (and `default`),
/// tokens separated by any white space; `macdef` blocks skipped.
pub fn parse_netrc(text: &str) -> Vec<Login> {
    let mut out = Vec::new();
    let mut words = text.split_whitespace().peekable();
    let mut current: Option<Login> = None;
    while let Some(w) = words.next() {
        match w {
            "machine" | "default" => {
                if let Some(l) = current.take() {
                    out.push(l);
                }
                let machine = if w == "machine" {
                    words.next().map(str::to_string)
                } else {
                    None
                };
                current = Some(Login {
                    machine,
                    user: String::new(),
                    password: String::new(),
                });
            }
            "login" => {
                if let (Some(l), Some(v)) = (current.as_mut(), words.next()) {
                    l.user = v.to_string();
                }
            }
            "password" => {
                if let (Some(l), Some(v)) = (current.as_mut(), words.next()) {
                    l.password = v.to_string();
                }
            }
            "account" => {
                words.next();
            }
            "macdef" => {
                // A macro runs to an empty line; split_whitespace cannot see one, so
                // the rest is not logins.
                break;
            }
            _ => {}
        }
    }
    out.extend(current);
    out
}

/// The cookies of a Netscape cookie file (curl's jar): `(domain, name=value)`.
pub fn parse_cookie_jar(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.strip_prefix("#HttpOnly_").unwrap_or(line);
            if line.starts_with('#') || line.trim().is_empty() {
                return None;
            }
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() >= 7).then(|| {
                (
                    f[0].trim_start_matches('.').to_ascii_lowercase(),
                    format!("{}={}", f[5], f[6]),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn netrc_logins() {
        let l = parse_netrc("machine urs.earthdata.nasa.gov login me password s3cret\ndefault login anon password x");
        assert_eq!(l.len(), 2);
        assert_eq!(l[0].machine.as_deref(), Some("urs.earthdata.nasa.gov"));
        assert_eq!(l[0].password, "s3cret");
        assert!(l[1].machine.is_none());
        assert!(!format!("{:?}", l[0]).contains("s3cret"));
    }

    #[test]
    fn rc_keys_for_a_host() {
        let mut rc = RcEntries::default();
        rc.add_text(
            "rc",
            "HTTP.TIMEOUT=5\n[http://h:8080/x]HTTP.USERAGENT=mine\nHTTP.SSL.VERIFYPEER=0\nHTTP.NETRC=/n\nHTTP.CREDENTIALS.USERPASSWORD=u:p\n",
        );
        let t = RcTarget::new("http", "h:8080", "x");
        let mut read = |p: &Path| {
            (p == Path::new("/n")).then(|| "machine other login a password b".to_string())
        };
        let s = HttpSettings::from_rc(&rc, &t, None, &mut read);
        assert_eq!(s.timeout, Duration::from_secs(5));
        assert_eq!(s.user_agent.as_deref(), Some("mine"));
        assert!(!s.verify_peer);
        assert_eq!(
            s.login_for("h:8080", "h:8080").map(|l| l.user.as_str()),
            Some("u")
        );
        assert_eq!(
            s.login_for("other", "h:8080").map(|l| l.user.as_str()),
            Some("a")
        );
        assert!(s.login_for("third", "h:8080").is_none());
    }

    #[test]
    fn cookie_jar_lines() {
        let c = parse_cookie_jar("# Netscape HTTP Cookie File\n.example.org\tTRUE\t/\tFALSE\t0\tsession\tabc\n#HttpOnly_h\tFALSE\t/\tFALSE\t0\tk\tv\n");
        assert_eq!(
            c,
            vec![
                ("example.org".into(), "session=abc".into()),
                ("h".into(), "k=v".into())
            ]
        );
    }
}
