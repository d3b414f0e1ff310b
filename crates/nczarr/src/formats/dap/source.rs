//! [`DapSource`]: a dataset an OPeNDAP server serves (DAP2), read as netcdf-c's DAP2
//! client shows it: the model built from the DDS and DAS (`view`), and each read a
//! constraint expression asking for exactly the region wanted, cut into answers of
//! bounded size fetched several at a time.

use super::dds::{self, DapType};
use super::fetch::Fetcher;
use super::settings::HttpSettings;
use super::view::{self, VarMap, View};
use super::xdr::{self, Leaf};
use crate::chunking::Region;
use crate::encoding::Encoding;
use crate::error::DapError;
use crate::error::{Error, Result};
use crate::model::{Dataset, Values, VarPath};
use crate::source::{DataSource, DatasetSource, FormatInfo};

/// Values of a variable fetched with the others of a printer's data section in one
/// request (netcdf-c's prefetch limit, `DFALTSMALLLIMIT`).
const SMALL_VALUES: u64 = 4096;

/// Bytes of values one answer carries at most: under the limits servers set on a
/// response (THREDDS's default is 500 MB), and small enough that several in flight
/// overlap the server's work with the transfer.
const ANSWER_BYTES: u64 = 8 << 20;

/// What a DAP2 server answered for a dataset's description: kept for zmapdump.
#[derive(Debug, Clone)]
pub struct DapDocuments {
    /// The DDS, as received.
    pub dds: String,
    /// The DAS, as received (empty when the server gave none).
    pub das: String,
}

/// A dataset on an OPeNDAP server, read with DAP2.
pub struct DapSource {
    /// The dataset's URL without query or fragment; answers are this plus `.dds`...
    base: String,
    /// The constraint of the URL the user gave, if any: netcdf-c shows only what it selects.
    user_ce: Option<String>,
    fetcher: Fetcher,
    view: View,
    format: FormatInfo,
    documents: DapDocuments,
    /// What could not be read, said by the tools after their output.
    problems: Vec<String>,
    /// Small variables fetched together ([`DataSource::will_read`]), each taken out
    /// when read.
    fetched: std::sync::Mutex<Vec<(VarPath, Values)>>,
    /// Bytes of values an answer carries at most: [`ANSWER_BYTES`], or less once the
    /// server has refused an answer as too large (THREDDS's response limit).
    answer_limit: std::sync::atomic::AtomicU64,
    /// A dataset saved in files (`file://`): its whole data answer, read once (a file
    /// cannot be asked for part of itself), and each read cut from it.
    saved: Option<std::sync::OnceLock<std::result::Result<xdr::Leaves, String>>>,
}

impl std::fmt::Debug for DapSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DapSource")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

/// How to open a DAP2 dataset.
#[derive(Clone, Default)]
pub struct DapOptions {
    /// HTTP settings (`.ncrc`'s keys).
    pub http: HttpSettings,
    /// The URL's `[key=value]` and fragment parameters (`maxstrlen`, ...).
    pub params: Vec<(String, String)>,
    /// Requests reported here (`NCTRACING`, `[show=fetch]`).
    pub trace: Option<crate::store::TraceSink>,
}

impl DapSource {
    /// The DDS at `base.dds` (the whole dataset's, whatever the URL's constraint), or
    /// why it is not one: the probe that tells an OPeNDAP server from a web server
    /// (`None` when the answer is not a DDS at all).
    ///
    /// # Errors
    /// [`DapError`] when the server cannot be reached.
    pub fn probe(
        base: &str,
        query: Option<&str>,
        options: &DapOptions,
    ) -> Result<Option<String>, DapError> {
        let _ = query;
        let fetcher = Fetcher::new(base, &options.http, options.trace.clone())?;
        let url = format!("{base}.dds");
        match fetcher.get(&url) {
            Ok(body) => {
                let text = String::from_utf8_lossy(&body);
                Ok(text
                    .trim_start()
                    .starts_with("Dataset")
                    .then(|| text.into_owned()))
            }
            // A login wanted, or refused: so it will be for anything else there.
            Err(
                e @ DapError::Server {
                    status: 401 | 403, ..
                },
            ) => Err(e),
            Err(DapError::Server { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Open the dataset at `base` (an `http(s)://` URL without query or fragment),
    /// with the user's constraint `query` if any; `dds` when a probe already has it.
    ///
    /// # Errors
    /// [`Error::Dap`] naming the URL: a server's refusal, a DDS or DAS that does not
    /// parse, a variable netCDF cannot show.
    pub fn open(
        base: &str,
        query: Option<&str>,
        dds: Option<String>,
        options: &DapOptions,
    ) -> Result<DapSource> {
        let fetcher = Fetcher::new(base, &options.http, options.trace.clone())?;
        // The whole dataset's DDS (whose variables own their DAS tables), the DAS, and
        // with a constraint in the URL the constrained DDS (what is shown): asked for
        // at once.
        let query = query.filter(|q| !q.is_empty());
        let saved = base.starts_with("file://");
        if let (true, Some(q)) = (saved, query) {
            return Err(DapError::Request {
                url: format!("{base}?{q}"),
                message:
                    "a dataset in files cannot be constrained (netcdf-c's file:// DAP2 neither)"
                        .into(),
            }
            .into());
        }
        let full_url = format!("{base}.dds");
        let das_url = format!("{base}.das");
        let shown_url = query.map(|q| format!("{base}.dds?{}", encode_query(q)));
        let mut urls = vec![das_url.clone()];
        if dds.is_none() {
            urls.push(full_url.clone());
        }
        urls.extend(shown_url.clone());
        let mut got = fetcher.get_many(urls).into_iter();
        let das_text = got.next().unwrap_or_else(|| Err(missing(&das_url)));
        let text = |b: Vec<u8>| String::from_utf8_lossy(&b).into_owned();
        let full_text = match dds {
            Some(d) => d,
            None => text(got.next().unwrap_or_else(|| Err(missing(&full_url)))?),
        };
        let parse_dds = |t: &str, url: &str| {
            dds::parse(t).map_err(|(line, message)| DapError::Parse {
                url: url.to_string(),
                what: "DDS",
                line,
                message,
            })
        };
        let full = parse_dds(&full_text, &full_url)?;
        let (dds_text, dds) = match &shown_url {
            Some(u) => {
                let t = text(got.next().unwrap_or_else(|| Err(missing(u)))?);
                let d = parse_dds(&t, u)?;
                (t, d)
            }
            None => (full_text.clone(), full.clone()),
        };
        // Each sequence's records are counted first, as netcdf-c counts them: its
        // first number field asked for whole.
        let mut seqs = Vec::new();
        view::sequences(&dds.decls, "", &mut seqs);
        let saved_answer = std::sync::OnceLock::new();
        let counts = if saved && !seqs.is_empty() {
            let leaves = load_saved(&fetcher, base);
            // Records that cannot be counted cannot be shown: said now, not shown
            // as none.
            if let Err(e) = &leaves {
                return Err(Error::Unreadable(e.clone()));
            }
            let counts = seqs
                .iter()
                .map(|s| {
                    let rows = leaves.as_ref().ok().and_then(|l| {
                        l.iter()
                            .find(|(p, _)| *p == s.count_by)
                            .map(|(_, v)| v.len() as u64 / s.per_row)
                    });
                    (s.path.clone(), rows.unwrap_or(0))
                })
                .collect();
            let _ = saved_answer.set(leaves);
            counts
        } else {
            count_records(&fetcher, base, &seqs)?
        };
        let mut all_counts = counts.clone();
        let mut full_seqs = Vec::new();
        view::sequences(&full.decls, "", &mut full_seqs);
        for s in full_seqs {
            if !all_counts.iter().any(|(p, _)| *p == s.path) {
                all_counts.push((s.path, 0));
            }
        }
        let all = view::atomics(&full.decls, &all_counts).map_err(|(var, message)| {
            DapError::Unmappable {
                url: base.to_string(),
                var,
                message,
            }
        })?;
        // A server without attributes answers the DAS with an error: netcdf-c reads on
        // without them, and so do we; a DAS that does not parse is an error.
        let das_text = match das_text {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(DapError::Server { .. }) => String::new(),
            Err(e) => return Err(e.into()),
        };
        // A DAS that does not parse (pydap does not escape quotes in strings): the
        // dataset is shown without attributes, as netcdf-c shows it, and the run
        // says so and fails.
        let mut problems = Vec::new();
        let das = if das_text.trim().is_empty() {
            Vec::new()
        } else {
            super::das::parse(&das_text).unwrap_or_else(|(line, message)| {
                let e = DapError::Parse {
                    url: das_url.clone(),
                    what: "DAS",
                    line,
                    message,
                };
                problems.push(format!("{e}; the dataset is shown without its attributes"));
                Vec::new()
            })
        };
        let user_ce =
            view::projections(query.unwrap_or("")).map_err(|message| DapError::Request {
                url: format!("{base}?{}", query.unwrap_or("")),
                message: format!("the URL's constraint expression: {message}"),
            })?;
        let view = view::build(&dds, &counts, &all, &das, &options.params, &user_ce).map_err(
            |(var, message)| DapError::Unmappable {
                url: base.to_string(),
                var,
                message,
            },
        )?;
        let format = FormatInfo {
            kind: "classic".into(),
            detail: format!(
                "OPeNDAP (DAP2) dataset at {base}, {} variables",
                view.vars.len()
            ),
            nc_properties: None,
            superblock_version: None,
            is_netcdf4: None,
            codecs_attr: false,
            attr_types: true,
            zarr_version: None,
            facts: Vec::new(),
        };
        // What zmapdump shows: the answers as received, as netcdf-c's `[show=fetch]`
        // names them and `[show=dds]`/`[show=das]` keep them.
        let mut format = format;
        let indent = |t: &str| {
            t.lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        format.facts.push("protocol: DAP2".into());
        format.facts.push(format!("dataset: {}", dds.name));
        format
            .facts
            .push(format!("{full_url}: {} bytes", full_text.len()));
        format
            .facts
            .push(format!("{das_url}: {} bytes", das_text.len()));
        if let Some(u) = &shown_url {
            format.facts.push(format!("{u}: {} bytes", dds_text.len()));
        }
        format.facts.push(format!("DDS:\n{}", indent(&dds_text)));
        format.facts.push(format!("DAS:\n{}", indent(&das_text)));
        Ok(DapSource {
            base: base.to_string(),
            user_ce: query.map(str::to_string),
            fetcher,
            view,
            format,
            documents: DapDocuments {
                dds: dds_text,
                das: das_text,
            },
            problems,
            fetched: std::sync::Mutex::new(Vec::new()),
            answer_limit: std::sync::atomic::AtomicU64::new(ANSWER_BYTES),
            saved: saved.then_some(saved_answer),
        })
    }

    /// The DDS and DAS the server answered.
    pub fn documents(&self) -> &DapDocuments {
        &self.documents
    }

    fn var(&self, path: &VarPath) -> Result<&VarMap> {
        self.view
            .vars
            .iter()
            .find(|v| v.path == *path)
            .ok_or_else(|| Error::NoSuchVar {
                var: path.to_string(),
            })
    }

    /// The constraint asking for `region` of `var` (the DAP dimensions only), each
    /// segment of its path with its own brackets (`[a:b]`, `[a:s:b]`).
    fn constraint(&self, var: &VarMap, region: &Region) -> String {
        let mut ce = String::new();
        let mut d = 0;
        for (k, seg) in var.segments.iter().enumerate() {
            if k > 0 {
                ce.push('.');
            }
            ce.push_str(&seg.name);
            for _ in 0..seg.rank {
                if seg.sequence {
                    // A sequence's rows are asked for whole.
                    d += 1;
                    continue;
                }
                let (s, n, st) = (region.start[d], region.count[d], region.stride[d].max(1));
                // The view's indices are the URL constraint's: on the server, each is
                // `origin + i * step`.
                let (o, step) = var.origin.get(d).copied().unwrap_or((0, 1));
                let first = o + s * step;
                let st = st * step;
                let last = first + (n.saturating_sub(1)) * st;
                // `[i]` would be netcdf-c's spelling of one index; `[i:i]` means the
                // same to every server, and pydap cannot answer `[i]`.
                ce.push_str(&if st == 1 || n == 1 {
                    format!("[{first}:{last}]")
                } else {
                    format!("[{first}:{st}:{last}]")
                });
                d += 1;
            }
        }
        // The user's selection (`?...&x>3`) keeps its selection clauses.
        if let Some(sel) = self
            .user_ce
            .as_deref()
            .and_then(|q| q.find('&').map(|i| &q[i..]))
        {
            ce.push_str(sel);
        }
        ce
    }
}

/// The whole data answer of a dataset saved in files, decoded (the error as text: it
/// is kept for every read).
fn load_saved(fetcher: &Fetcher, base: &str) -> std::result::Result<xdr::Leaves, String> {
    let url = format!("{base}.dods");
    fetcher
        .get(&url)
        .map_err(Error::from)
        .and_then(|body| decode_answer(&body, &url))
        .map_err(|e| e.to_string())
}

/// The records of each sequence of `seqs`: the values of its counting field.
fn count_records(
    fetcher: &Fetcher,
    base: &str,
    seqs: &[view::SequenceCount],
) -> Result<Vec<(String, u64)>> {
    let urls: Vec<String> = seqs
        .iter()
        .map(|s| format!("{base}.dods?{}", encode_query(&s.count_by)))
        .collect();
    let answers = fetcher.get_many(urls.clone());
    let mut out = Vec::new();
    for ((answer, url), s) in answers.into_iter().zip(&urls).zip(seqs) {
        let leaves = decode_answer(&answer?, url)?;
        let rows = leaves
            .iter()
            .find(|(p, _)| *p == s.count_by)
            .map_or(0, |(_, l)| l.len() as u64 / s.per_row);
        out.push((s.path.clone(), rows));
    }
    Ok(out)
}

fn missing(url: &str) -> DapError {
    DapError::Request {
        url: url.to_string(),
        message: "no answer".into(),
    }
}

/// A constraint expression as a URL's query: every character but letters, digits
/// and `!#$&'()*+,-./:;=?@_~` written `%XX` (brackets, and the `%` of a DAP escape,
/// which the server decodes once for the URL and once for the name).
fn encode_query(ce: &str) -> String {
    let mut out = String::with_capacity(ce.len() + 16);
    for b in ce.bytes() {
        if b.is_ascii_alphanumeric() || b"!#$&'()*+,-./:;=?@_~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The pieces of `region` (of a variable whose values are `size` bytes each) that
/// each fit in an answer of `limit` bytes, in C order: each piece's values follow
/// the last's in the region's order. Only the first `rank` dimensions are cut.
fn pieces(region: &Region, rank: usize, size: u64, limit: u64) -> Vec<Region> {
    let count = &region.count[..rank];
    // The first dimension from which on the rest fits whole in an answer.
    let mut d = rank;
    let mut inner = size;
    while d > 0 && inner.saturating_mul(count[d - 1]) <= limit {
        inner = inner.saturating_mul(count[d - 1]);
        d -= 1;
    }
    if d == 0 {
        return vec![region.clone()];
    }
    // Dimension d-1 is cut into runs of `k` indices; the ones before it go index by index.
    let cut = d - 1;
    let k = (limit / inner.max(1)).max(1);
    let mut out = Vec::new();
    let outer: Vec<u64> = count[..cut].to_vec();
    let mut idx = vec![0u64; cut];
    loop {
        let mut at = 0;
        while at < count[cut] {
            let n = k.min(count[cut] - at);
            let mut p = region.clone();
            for (i, &j) in idx.iter().enumerate() {
                p.start[i] = region.start[i] + j * region.stride[i];
                p.count[i] = 1;
            }
            p.start[cut] = region.start[cut] + at * region.stride[cut];
            p.count[cut] = n;
            out.push(p);
            at += n;
        }
        // The next outer index, in C order.
        let mut i = cut;
        loop {
            if i == 0 {
                return out;
            }
            i -= 1;
            idx[i] += 1;
            if idx[i] < outer[i] {
                break;
            }
            idx[i] = 0;
        }
    }
}

/// The values of one piece's leaf as netCDF values of `var`.
fn to_values(var: &VarMap, leaf: Leaf, region: &Region) -> Result<Values, String> {
    Ok(match (var.ty, leaf) {
        (DapType::Byte, Leaf::Byte(v)) => Values::Byte(v),
        (DapType::Int16 | DapType::UInt16, Leaf::Short(v)) => Values::Short(v),
        (DapType::Int32 | DapType::UInt32, Leaf::Int(v)) => Values::Int(v),
        (DapType::Float32, Leaf::Float(v)) => Values::Float(v),
        (DapType::Float64, Leaf::Double(v)) => Values::Double(v),
        (DapType::String | DapType::Url, Leaf::Text(v)) => {
            // The string dimension's part of the region: each string cut or padded
            // with NULs to the invented width, then the part asked for.
            let last = region.rank() - 1;
            let (s, n, st) = (
                region.start[last],
                region.count[last],
                region.stride[last].max(1),
            );
            let mut out = Vec::with_capacity(v.len() * n as usize);
            for text in v {
                // netcdf-c expands a string's escapes and ends it at a NUL.
                let text = super::names::expand_escaped_bytes(&text);
                for j in 0..n {
                    let at = (s + j * st) as usize;
                    out.push(text.get(at).copied().unwrap_or(0));
                }
            }
            Values::Char(out)
        }
        (ty, leaf) => {
            return Err(format!(
                "the answer holds {} values where the DDS declared {ty:?}",
                leaf_kind(&leaf)
            ))
        }
    })
}

fn leaf_kind(l: &Leaf) -> &'static str {
    match l {
        Leaf::Byte(_) => "Byte",
        Leaf::Short(_) => "16-bit",
        Leaf::Int(_) => "32-bit integer",
        Leaf::Float(_) => "Float32",
        Leaf::Double(_) => "Float64",
        Leaf::Text(_) => "String",
    }
}

impl DapSource {
    /// The values of `parts` of `var` (each one answer), fetched at once, in order.
    fn fetch_parts(&self, var: &VarMap, parts: &[Region]) -> Result<Values> {
        let t = view::nc_type(var.ty);
        let urls: Vec<String> = parts
            .iter()
            .map(|p| {
                format!(
                    "{}.dods?{}",
                    self.base,
                    encode_query(&self.constraint(var, p))
                )
            })
            .collect();
        let answers = self.fetcher.get_many(urls.clone());
        let want: u64 = parts.iter().map(|p| p.len().unwrap_or(0)).sum();
        // The answers decoded on the pool's threads (XDR to host order is a pass over
        // every byte), each then appended in order.
        let answers: Vec<std::result::Result<Result<Values>, DapError>> = {
            use rayon::prelude::*;
            answers
                .into_par_iter()
                .zip(urls.par_iter())
                .zip(parts.par_iter())
                .map(|((answer, url), part)| {
                    answer.map(|body| {
                        decode_answer(&body, url).and_then(|leaves| leaf_values(var, leaves, part, url))
                    })
                })
                .collect()
        };
        let mut out = Values::with_capacity(t, want as usize);
        for ((answer, url), part) in answers.into_iter().zip(&urls).zip(parts) {
            let _ = url;
            match answer {
                // Over the server's response limit: the piece again, in pieces under
                // it (the limit it names, or half of what it refused).
                Err(DapError::Server { message, .. })
                    if too_big(&message) && part.len().unwrap_or(0) > 1 =>
                {
                    let size = value_size(var);
                    let refused = part.len().unwrap_or(1).saturating_mul(size);
                    let limit = stated_limit(&message)
                        .unwrap_or(refused / 2)
                        .min(refused / 2)
                        .max(size);
                    self.answer_limit
                        .fetch_min(limit, std::sync::atomic::Ordering::Relaxed);
                    let smaller = pieces(part, var.dap_rank, size, limit);
                    out.append(self.fetch_parts(var, &smaller)?);
                }
                answer => out.append(answer??),
            }
        }
        Ok(out)
    }

    /// The small ones of `vars`, whole, in one request, kept for their reads.
    fn fetch_small(&self, vars: &[VarPath]) -> Result<()> {
        let mut small = Vec::new();
        for path in vars {
            let Ok(var) = self.var(path) else { continue };
            let shape = self.view.shape(var);
            let n = shape[..var.dap_rank]
                .iter()
                .try_fold(1u64, |a, &d| a.checked_mul(d))
                .unwrap_or(u64::MAX);
            if n > 0 && n <= SMALL_VALUES {
                small.push((var, Region::whole(&shape)));
            }
        }
        if small.len() < 2 {
            return Ok(());
        }
        let ce: Vec<String> = small
            .iter()
            .map(|(var, whole)| self.constraint(var, whole))
            .collect();
        let url = format!("{}.dods?{}", self.base, encode_query(&ce.join(",")));
        let mut leaves = decode_answer(&self.fetcher.get(&url)?, &url)?;
        let mut got = Vec::new();
        for (var, whole) in small {
            // Each variable's leaf, taken out of the answer's in turn.
            let dotted = var.dotted();
            let Some(i) = leaves.iter().position(|(p, _)| *p == dotted) else {
                continue;
            };
            let one = vec![leaves.remove(i)];
            got.push((var.path.clone(), leaf_values(var, one, &whole, &url)?));
        }
        if let Ok(mut f) = self.fetched.lock() {
            f.extend(got);
        }
        Ok(())
    }
}

/// The leaves of a data answer, or why it is not one.
fn decode_answer(body: &[u8], url: &str) -> Result<xdr::Leaves> {
    let bad = |message: String| {
        Error::from(DapError::Body {
            url: url.to_string(),
            message,
        })
    };
    let (dds_text, body) = xdr::split_answer(body)
        .ok_or_else(|| bad("no 'Data:' line: not a DAP2 data answer".into()))?;
    let dds = dds::parse(&String::from_utf8_lossy(dds_text))
        .map_err(|(line, m)| bad(format!("its DDS, line {line}: {m}")))?;
    xdr::decode(&dds.decls, body).map_err(bad)
}

/// The values of `var` for `part` among an answer's leaves.
fn leaf_values(var: &VarMap, leaves: xdr::Leaves, part: &Region, url: &str) -> Result<Values> {
    let bad = |message: String| {
        Error::from(DapError::Body {
            url: url.to_string(),
            message,
        })
    };
    let dotted = var.dotted();
    let leaf = pick(leaves, &dotted)
        .ok_or_else(|| bad(format!("no values of '{dotted}' in the answer")))?;
    let want = (0..var.dap_rank).map(|d| part.count[d]).product::<u64>();
    if leaf.len() as u64 != want {
        return Err(bad(format!(
            "{} values of '{dotted}' where {want} were asked for",
            leaf.len()
        )));
    }
    to_values(var, leaf, part).map_err(bad)
}

impl DataSource for DapSource {
    fn will_read(&self, vars: &[VarPath]) {
        // A failure here is met again, and said, by the read that needs the values.
        let _ = self.fetch_small(vars);
    }

    fn read(&self, path: &VarPath, region: &Region) -> Result<Values> {
        let var = self.var(path)?;
        let shape = self.view.shape(var);
        region.check(&shape)?;
        let t = view::nc_type(var.ty);
        if region.is_empty() {
            return Ok(Values::empty(t));
        }
        if *region == Region::whole(&shape) {
            if let Ok(mut f) = self.fetched.lock() {
                if let Some(i) = f.iter().position(|(p, _)| p == path) {
                    return Ok(f.swap_remove(i).1);
                }
            }
        }
        let size = value_size(var);
        if let Some(saved) = &self.saved {
            let leaves = saved
                .get_or_init(|| load_saved(&self.fetcher, &self.base))
                .as_ref()
                .map_err(|e| Error::Unreadable(e.clone()))?;
            let dotted = var.dotted();
            let url = format!("{}.dods", self.base);
            let leaf: Vec<(String, Leaf)> = leaves
                .iter()
                .filter(|(p, _)| *p == dotted)
                .take(1)
                .cloned()
                .collect();
            let whole = Region::whole(&shape);
            let all = leaf_values(var, leaf, &whole, &url)?;
            return Ok(gather(&all, &shape, region));
        }
        if var.in_sequence() {
            // A sequence's field comes whole (servers cannot cut rows by index in
            // DAP2), and is cut here.
            let whole = Region::whole(&shape);
            let all = self.fetch_parts(var, std::slice::from_ref(&whole))?;
            return Ok(gather(&all, &shape, region));
        }
        let limit = self.answer_limit.load(std::sync::atomic::Ordering::Relaxed);
        let parts = pieces(region, var.dap_rank, size, limit);
        self.fetch_parts(var, &parts)
    }
}

/// Bytes one value of `var` takes in an answer (a string: its dimension's length).
fn value_size(var: &VarMap) -> u64 {
    if var.ty.is_text() {
        var.string_len.unwrap_or(64)
    } else {
        view::nc_type(var.ty).size() as u64
    }
}

/// True for a server's refusal of an answer as too large (THREDDS: `Request too
/// big=...`; Hyrax: `... exceeds the maximum response size`).
fn too_big(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("too big") || m.contains("too large") || m.contains("exceeds")
}

/// The limit a refusal states, in bytes (THREDDS: `max=500.0` Mbytes), with room for
/// the answer's own description.
fn stated_limit(message: &str) -> Option<u64> {
    let at = message.find("max=")? + 4;
    let number: String = message[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mbytes: f64 = number.parse().ok()?;
    Some((mbytes * 1e6 * 0.9) as u64).filter(|&b| b > 0)
}

/// The values of `region` of `all`, an array of `shape` in C order.
fn gather(all: &Values, shape: &[u64], region: &Region) -> Values {
    let mut out = Values::with_capacity(all.nc_type(), region.len().unwrap_or(0) as usize);
    for at in crate::chunking::region_offsets(shape, region) {
        let at = at as usize;
        out.append(all.slice(at..at + 1));
    }
    out
}

/// The leaf of `projection` among an answer's: the one with its path, or else the
/// one whose last name is the projection's last (a grid's array comes back inside a
/// structure named after the grid).
fn pick(leaves: xdr::Leaves, projection: &str) -> Option<Leaf> {
    let last = projection.rsplit('.').next().unwrap_or(projection);
    let mut fallback = None;
    for (p, leaf) in leaves {
        if p == projection {
            return Some(leaf);
        }
        if fallback.is_none() && p.rsplit('.').next() == Some(last) {
            fallback = Some(leaf);
        }
    }
    fallback
}

impl DatasetSource for DapSource {
    fn dataset(&self) -> &Dataset {
        &self.view.dataset
    }

    fn format(&self) -> &FormatInfo {
        &self.format
    }

    fn encoding(&self, var: &VarPath) -> Option<Encoding> {
        let _ = var;
        None
    }

    fn reads_are_cheap(&self) -> bool {
        false
    }

    fn problems(&self) -> &[String] {
        &self.problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_fit_answers_and_keep_c_order() {
        let whole = Region::whole(&[4, 1024, 1024]);
        let p = pieces(&whole, 3, 4, ANSWER_BYTES);
        // 4 MiB a row of dim 0: two rows an answer.
        assert_eq!(p.len(), 2);
        assert_eq!(p[1].start, vec![2, 0, 0]);
        let p = pieces(&whole, 3, 64, ANSWER_BYTES);
        assert!(p.iter().all(|r| r.len().unwrap() * 64 <= ANSWER_BYTES));
        assert_eq!(p.iter().map(|r| r.len().unwrap()).sum::<u64>(), 4 << 20);
        assert_eq!(p[0].start, vec![0, 0, 0]);
        assert_eq!(p[1].start, vec![0, 128, 0]);
        assert_eq!(p[8].start, vec![1, 0, 0]);
        let small = Region::whole(&[3]);
        assert_eq!(pieces(&small, 1, 4, ANSWER_BYTES), vec![small.clone()]);
        assert_eq!(
            stated_limit("Request too big=0.04 Mbytes, max=0.008"),
            Some(7200)
        );
        assert!(too_big("Request too big=0.04 Mbytes, max=0.008"));
    }
}
