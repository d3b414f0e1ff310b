//! [`DapSource`]: a dataset an OPeNDAP server serves (DAP2), read as netcdf-c's DAP2
//! client shows it: the model built from the DDS and DAS (`view`), and each read a
//! constraint expression asking for exactly the region wanted, cut into answers of
//! bounded size fetched several at a time.

use super::answers::{
    decode_answer, decode_query, encode_query, gather, leaf_values, pieces, stated_limit, too_big,
    value_size, ANSWER_BYTES,
};
use super::dds;
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
            // A login wanted, or refused: so it will be for anything else there. A
            // DAP error body says the server is an OPeNDAP one (a mistyped THREDDS
            // path): its message is the answer.
            Err(
                e @ DapError::Server {
                    status: 401 | 403, ..
                },
            ) => Err(e),
            Err(e @ DapError::Server { dap: true, .. }) => Err(e),
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
        // A constraint as a browser writes it (`%5B0:1:9%5D`) is the same constraint:
        // decoded once here, encoded once when sent.
        let decoded = query.map(decode_query);
        let query = decoded.as_deref().filter(|q| !q.is_empty());
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
            count_records(&fetcher, base, &seqs, query)?
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
        // A DAS the server refuses, or one that does not parse (pydap does not escape
        // quotes in strings): the dataset is shown without attributes, as netcdf-c
        // shows it, and the run says so and fails (a copy without `scale_factor` is
        // not the data).
        let mut problems = Vec::new();
        let das_text = match das_text {
            Ok(b) => String::from_utf8_lossy(&b).into_owned(),
            Err(e @ DapError::Server { .. }) => {
                problems.push(format!("{e}; the dataset is shown without its attributes"));
                String::new()
            }
            Err(e) => return Err(e.into()),
        };
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

/// The URL of a data answer for `projections`, with the selection clauses of the
/// URL's constraint (`&temp>5`) once at the end: every read sees the rows it selects.
fn dods_url(base: &str, projections: &str, user_ce: Option<&str>) -> String {
    let selection = user_ce
        .and_then(|q| q.find('&').map(|i| &q[i..]))
        .unwrap_or("");
    format!(
        "{base}.dods?{}",
        encode_query(&format!("{projections}{selection}"))
    )
}

/// The records of each sequence of `seqs`: the values of its counting field (the
/// URL's selection applied, as to every read).
fn count_records(
    fetcher: &Fetcher,
    base: &str,
    seqs: &[view::SequenceCount],
    user_ce: Option<&str>,
) -> Result<Vec<(String, u64)>> {
    let urls: Vec<String> = seqs
        .iter()
        .map(|s| dods_url(base, &s.count_by, user_ce))
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

impl DapSource {
    /// The values of `parts` of `var` (each one answer), fetched at once, in order.
    fn fetch_parts(&self, var: &VarMap, parts: &[Region]) -> Result<Values> {
        let t = view::nc_type(var.ty);
        let urls: Vec<String> = parts
            .iter()
            .map(|p| {
                dods_url(
                    &self.base,
                    &self.constraint(var, p),
                    self.user_ce.as_deref(),
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
                        decode_answer(&body, url)
                            .and_then(|leaves| leaf_values(var, leaves, part, url))
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
        let url = dods_url(&self.base, &ce.join(","), self.user_ce.as_deref());
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
