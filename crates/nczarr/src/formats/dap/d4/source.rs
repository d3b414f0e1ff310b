//! [`Dap4Source`]: a dataset a DAP4 server serves, read as netcdf-c's DAP4 client
//! shows it: the model from the DMR (`view`), and each read a `dap4.ce` constraint
//! for exactly the region wanted, in responses of bounded size fetched several at a
//! time, each response's variables read where they lie in it (`serial`).

use super::chunks::{self, ChunkError};
use super::dmr;
use super::serial::{self, Checksums, Data};
use super::view::{self, VarInfo, View};
use crate::chunking::Region;
use crate::encoding::Encoding;
use crate::error::{DapError, Error, Result};
use crate::formats::dap::answers::{
    encode_query, gather, pieces, stated_limit, too_big, ANSWER_BYTES,
};
use crate::formats::dap::fetch::Fetcher;
use crate::formats::dap::DapOptions;
use crate::model::{Dataset, UValue, Values, VarPath};
use crate::source::{DataSource, DatasetSource, FormatInfo};

/// Values of a variable fetched with the others of a printer's data section in one
/// response.
const SMALL_VALUES: u64 = 4096;

/// A response taken apart and its variables found in it.
struct Decoded {
    response: chunks::Response,
    /// The response's top-level variables: (fully qualified name, the DMR's variable
    /// with enums resolved, element count, bytes).
    vars: Vec<(String, dmr::Var, u64, std::ops::Range<usize>)>,
}

/// A dataset on a DAP4 server (or a DAP4 response saved in a file).
pub struct Dap4Source {
    base: String,
    /// The URL's query (its `dap4.ce` constraint), sent with every request.
    query: Option<String>,
    fetcher: Fetcher,
    view: View,
    format: FormatInfo,
    /// Hyrax's checksums (`#hyrax`): strings' over their bytes only.
    hyrax: bool,
    /// Reads cut from one whole response: a file (which cannot be asked for part of
    /// itself) or a URL constraint (whose indices are the constrained ones).
    whole: Option<std::sync::OnceLock<std::result::Result<Decoded, String>>>,
    /// Small variables fetched together ([`DataSource::will_read`]).
    fetched: std::sync::Mutex<Vec<(VarPath, Values)>>,
    answer_limit: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for Dap4Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dap4Source")
            .field("base", &self.base)
            .finish_non_exhaustive()
    }
}

fn body_error(url: &str, e: ChunkError) -> DapError {
    match e {
        ChunkError::Server(_) => DapError::Server {
            url: url.to_string(),
            status: 200,
            message: e.to_string(),
            dap: true,
        },
        e => DapError::Body {
            url: url.to_string(),
            message: e.to_string(),
        },
    }
}

/// Take the response `raw` (from `url`) apart: its DMR parsed, its variables found
/// and their checksums verified.
fn decode(raw: Vec<u8>, url: &str, hyrax: bool) -> std::result::Result<Decoded, DapError> {
    let response = chunks::dechunk(raw).map_err(|e| body_error(url, e))?;
    let root = dmr::parse(&response.dmr).map_err(|(line, message)| DapError::Parse {
        url: url.to_string(),
        what: "DMR",
        line,
        message,
    })?;
    let built = view::build(&root, None).map_err(|(var, message)| DapError::Unmappable {
        url: url.to_string(),
        var,
        message,
    })?;
    let size_of = |d: &dmr::DimUse| match d {
        dmr::DimUse::Anonymous(n) => *n,
        dmr::DimUse::Named(f) => view::find_dim(&root, f).map_or(0, |(_, d)| d.size),
    };
    let list: Vec<(&dmr::Var, u64)> = built
        .vars
        .iter()
        .map(|v| (&v.var, v.shape.iter().product::<u64>()))
        .collect();
    let data = Data {
        bytes: &response.data,
        little_endian: response.little_endian,
    };
    let declared = built
        .vars
        .iter()
        .any(|v| v.var.attrs.iter().any(|a| a.name == "_DAP4_Checksum_CRC32"));
    let checksums = if response.no_checksums {
        Checksums::Absent
    } else if declared {
        if hyrax {
            Checksums::Hyrax
        } else {
            Checksums::Whole
        }
    } else {
        match serial::infer_checksums(&list, &data, &size_of) {
            Checksums::Whole if hyrax => Checksums::Hyrax,
            c => c,
        }
    };
    let placed =
        serial::delimit(&list, &data, checksums, &size_of).map_err(|message| DapError::Body {
            url: url.to_string(),
            message,
        })?;
    let counts: Vec<u64> = list.iter().map(|(_, n)| *n).collect();
    drop(list);
    let vars = built
        .vars
        .into_iter()
        .zip(counts)
        .zip(placed)
        .map(|((v, n), p)| (v.fqn, v.var, n, p.bytes))
        .collect();
    Ok(Decoded { response, vars })
}

impl Dap4Source {
    /// Open the dataset at `base` (an `http(s)://` URL without query or fragment, or a
    /// `file://` path whose `.dap` holds a saved response), with the URL's query.
    ///
    /// # Errors
    /// [`Error::Dap`] naming the URL: a refusal, a DMR that does not parse, a variable
    /// netCDF cannot show.
    pub fn open(
        base: &str,
        query: Option<&str>,
        options: &DapOptions,
        hyrax: bool,
    ) -> Result<Dap4Source> {
        let fetcher = Fetcher::new(base, &options.http, options.trace.clone())?;
        let query = query
            .map(crate::formats::dap::answers::decode_query)
            .filter(|q| !q.is_empty());
        let saved = base.starts_with("file://");
        let opaque_size = options
            .params
            .iter()
            .find(|(k, _)| k == "opaquesize")
            .and_then(|(_, v)| v.parse().ok());
        let whole = std::sync::OnceLock::new();
        let (dmr_url, dmr_text) = if saved {
            if let Some(q) = &query {
                return Err(DapError::Request {
                    url: format!("{base}?{q}"),
                    message: "a response saved in a file cannot be constrained".into(),
                }
                .into());
            }
            let url = format!("{base}.dap");
            let raw = fetcher.get(&url)?;
            let decoded = decode(raw, &url, hyrax)?;
            let text = decoded.response.dmr.clone();
            let _ = whole.set(Ok(decoded));
            (url, text)
        } else {
            let url = match &query {
                Some(q) => format!("{base}.dmr.xml?{}", encode_ce_query(q)),
                None => format!("{base}.dmr.xml"),
            };
            let raw = fetcher.get(&url)?;
            (url, String::from_utf8_lossy(&raw).into_owned())
        };
        let root = dmr::parse(&dmr_text).map_err(|(line, message)| DapError::Parse {
            url: dmr_url.clone(),
            what: "DMR",
            line,
            message,
        })?;
        let view =
            view::build(&root, opaque_size).map_err(|(var, message)| DapError::Unmappable {
                url: base.to_string(),
                var,
                message,
            })?;
        let indent = |t: &str| {
            t.lines()
                .map(|l| format!("  {l}"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let format = FormatInfo {
            kind: "netCDF-4".into(),
            detail: format!(
                "OPeNDAP (DAP4) dataset at {base}, {} variables",
                view.vars.len()
            ),
            nc_properties: None,
            superblock_version: None,
            is_netcdf4: None,
            codecs_attr: false,
            attr_types: true,
            zarr_version: None,
            facts: vec![
                "protocol: DAP4".into(),
                format!("dataset: {}", root.name),
                format!("{dmr_url}: {} bytes", dmr_text.len()),
                format!("DMR:\n{}", indent(&dmr_text)),
            ],
        };
        let constrained = query.as_deref().is_some_and(|q| q.contains("dap4.ce="));
        Ok(Dap4Source {
            base: base.to_string(),
            query,
            fetcher,
            view,
            format,
            hyrax,
            whole: (saved || constrained).then_some(whole),
            fetched: std::sync::Mutex::new(Vec::new()),
            answer_limit: std::sync::atomic::AtomicU64::new(ANSWER_BYTES),
        })
    }

    fn info(&self, path: &VarPath) -> Result<&VarInfo> {
        self.view
            .vars
            .iter()
            .find(|v| v.path == *path)
            .ok_or_else(|| Error::NoSuchVar {
                var: path.to_string(),
            })
    }

    /// The `.dap` URL for the projections `ce` (with the URL's other query keys).
    fn dap_url(&self, ce: &str) -> String {
        let mut q = format!("dap4.ce={}&dap4.checksum=true", encode_query(ce));
        if let Some(user) = &self.query {
            for kv in user.split('&').filter(|kv| {
                !kv.starts_with("dap4.ce=") && !kv.starts_with("dap4.checksum=") && !kv.is_empty()
            }) {
                q.push('&');
                q.push_str(kv);
            }
        }
        format!("{}.dap?{q}", self.base)
    }

    /// The whole response (a file's, or the URL constraint's), fetched once.
    fn whole(&self) -> Result<Option<&Decoded>> {
        let Some(cell) = &self.whole else {
            return Ok(None);
        };
        let got = cell.get_or_init(|| {
            let url = match &self.query {
                Some(q) => format!("{}.dap?{}", self.base, encode_ce_query(q)),
                None => format!("{}.dap", self.base),
            };
            self.fetcher
                .get(&url)
                .and_then(|raw| decode(raw, &url, self.hyrax))
                .map_err(|e| e.to_string())
        });
        got.as_ref()
            .map(Some)
            .map_err(|e| Error::Unreadable(e.clone()))
    }

    /// The values of `info`'s variable in the decoded response `d` (all of them, C order).
    fn values_in(&self, info: &VarInfo, d: &Decoded, url: &str) -> Result<Values> {
        let (_, var, n, range) = d
            .vars
            .iter()
            .find(|(f, ..)| *f == info.fqn)
            .ok_or_else(|| DapError::Body {
                url: url.to_string(),
                message: format!("the response has no variable {}", info.fqn),
            })?;
        let bytes = &d.response.data[range.clone()];
        let le = d.response.little_endian;
        match &var.ty {
            dmr::VarType::Atomic(a) if a.size().is_some() => {
                let size = a.size().unwrap_or(1) as u64;
                if (bytes.len() as u64) != n * size {
                    return Err(DapError::Body {
                        url: url.to_string(),
                        message: format!(
                            "variable {}: {} bytes for {n} values",
                            info.fqn,
                            bytes.len()
                        ),
                    }
                    .into());
                }
                Ok(serial::fixed(*a, bytes, le))
            }
            dmr::VarType::Atomic(_) => {
                serial::strings(bytes, *n, le)
                    .map(Values::String)
                    .map_err(|message| {
                        DapError::Body {
                            url: url.to_string(),
                            message,
                        }
                        .into()
                    })
            }
            _ => Err(Error::Unsupported(format!(
                "variable '{}': values of a user-defined type are read by element",
                info.path
            ))),
        }
    }

    /// The elements of `info`'s variable in `d`.
    fn instances_in(&self, info: &VarInfo, d: &Decoded, url: &str) -> Result<Vec<UValue>> {
        let (_, var, n, range) = d
            .vars
            .iter()
            .find(|(f, ..)| *f == info.fqn)
            .ok_or_else(|| DapError::Body {
                url: url.to_string(),
                message: format!("the response has no variable {}", info.fqn),
            })?;
        let root = dmr::parse(&d.response.dmr).unwrap_or_default();
        let size_of = |dim: &dmr::DimUse| match dim {
            dmr::DimUse::Anonymous(n) => *n,
            dmr::DimUse::Named(f) => view::find_dim(&root, f).map_or(0, |(_, d)| d.size),
        };
        let mut out = serial::instances(
            var,
            *n,
            &d.response.data[range.clone()],
            d.response.little_endian,
            &size_of,
        )
        .map_err(|message| DapError::Body {
            url: url.to_string(),
            message,
        })?;
        if let Some(size) = info.opaque_size {
            for v in &mut out {
                if let UValue::Opaque(b) = v {
                    if b.len() as u64 > size {
                        return Err(Error::Unreadable(format!(
                            "{url}: variable '{}': an opaque value of {} bytes is larger than its type's {size} (set [opaquesize={}] in the URL)",
                            info.path,
                            b.len(),
                            b.len()
                        )));
                    }
                    b.resize(size as usize, 0);
                }
            }
        }
        Ok(out)
    }

    /// The constraint asking for `region` of `info`'s variable.
    fn constraint(info: &VarInfo, region: &Region) -> String {
        let mut ce = info.fqn.clone();
        for d in 0..info.shape.len() {
            let (s, n, st) = (region.start[d], region.count[d], region.stride[d].max(1));
            let last = s + n.saturating_sub(1) * st;
            ce.push_str(&if st == 1 || n == 1 {
                format!("[{s}:{last}]")
            } else {
                format!("[{s}:{st}:{last}]")
            });
        }
        ce
    }

    fn fetch_parts(&self, info: &VarInfo, parts: &[Region]) -> Result<Values> {
        let t = info.var_nc_type();
        let urls: Vec<String> = parts
            .iter()
            .map(|p| self.dap_url(&Self::constraint(info, p)))
            .collect();
        let answers = self.fetcher.get_many(urls.clone());
        let want: u64 = parts.iter().map(|p| p.len().unwrap_or(0)).sum();
        let mut out = Values::with_capacity(t, want as usize);
        for ((answer, url), part) in answers.into_iter().zip(&urls).zip(parts) {
            match answer {
                Err(DapError::Server { message, .. })
                    if too_big(&message) && part.len().unwrap_or(0) > 1 =>
                {
                    let size = info.value_size();
                    let refused = part.len().unwrap_or(1).saturating_mul(size);
                    let limit = stated_limit(&message)
                        .unwrap_or(refused / 2)
                        .min(refused / 2)
                        .max(size);
                    self.answer_limit
                        .fetch_min(limit, std::sync::atomic::Ordering::Relaxed);
                    let smaller = pieces(part, info.shape.len(), size, limit);
                    out.append(self.fetch_parts(info, &smaller)?);
                }
                answer => {
                    let d = decode(answer?, url, self.hyrax)?;
                    out.append(self.values_in(info, &d, url)?);
                }
            }
        }
        Ok(out)
    }
}

/// A URL query whose `dap4.ce` value is encoded for sending (the rest as given).
fn encode_ce_query(q: &str) -> String {
    q.split('&')
        .map(|kv| match kv.strip_prefix("dap4.ce=") {
            Some(ce) => format!("dap4.ce={}", encode_query(ce)),
            None => kv.to_string(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

impl VarInfo {
    fn var_nc_type(&self) -> crate::model::NcType {
        match &self.var.ty {
            dmr::VarType::Atomic(a) => a.nc_type(),
            _ => crate::model::NcType::UByte,
        }
    }

    fn value_size(&self) -> u64 {
        match &self.var.ty {
            dmr::VarType::Atomic(a) => a.size().map_or(64, |s| s as u64),
            _ => 64,
        }
    }
}

impl DataSource for Dap4Source {
    fn read(&self, path: &VarPath, region: &Region) -> Result<Values> {
        let info = self.info(path)?;
        region.check(&info.shape)?;
        let t = info.var_nc_type();
        if info.user {
            return Err(Error::Unsupported(format!(
                "variable '{path}': values of a user-defined type are read by element"
            )));
        }
        if region.is_empty() {
            return Ok(Values::empty(t));
        }
        let whole_region = Region::whole(&info.shape);
        if *region == whole_region {
            if let Ok(mut f) = self.fetched.lock() {
                if let Some(i) = f.iter().position(|(p, _)| p == path) {
                    return Ok(f.swap_remove(i).1);
                }
            }
        }
        if let Some(d) = self.whole()? {
            let url = format!("{}.dap", self.base);
            let all = self.values_in(info, d, &url)?;
            return Ok(if *region == whole_region {
                all
            } else {
                gather(&all, &info.shape, region)
            });
        }
        let limit = self.answer_limit.load(std::sync::atomic::Ordering::Relaxed);
        let parts = pieces(region, info.shape.len(), info.value_size(), limit);
        self.fetch_parts(info, &parts)
    }

    fn read_user(&self, path: &VarPath, region: &Region) -> Result<Vec<UValue>> {
        let info = self.info(path)?;
        region.check(&info.shape)?;
        if !info.user {
            return Err(Error::Unsupported(format!(
                "variable '{path}': not of a user-defined type"
            )));
        }
        if let Some(d) = self.whole()? {
            let url = format!("{}.dap", self.base);
            let all = self.instances_in(info, d, &url)?;
            return Ok(crate::chunking::region_offsets(&info.shape, region)
                .filter_map(|at| all.get(at as usize).cloned())
                .collect());
        }
        // Elements of user-defined types are small records: one response for the region.
        let url = self.dap_url(&Self::constraint(info, region));
        let raw = self.fetcher.get(&url)?;
        let d = decode(raw, &url, self.hyrax)?;
        self.instances_in(info, &d, &url)
    }

    fn will_read(&self, vars: &[VarPath]) {
        if self.whole.is_some() {
            return;
        }
        let small: Vec<&VarInfo> = vars
            .iter()
            .filter_map(|p| self.info(p).ok())
            .filter(|i| !i.user && i.shape.iter().product::<u64>() <= SMALL_VALUES)
            .collect();
        if small.len() < 2 {
            return;
        }
        let ce: Vec<String> = small
            .iter()
            .map(|i| Self::constraint(i, &Region::whole(&i.shape)))
            .collect();
        let url = self.dap_url(&ce.join(";"));
        // A failure here is met again, and said, by the read that needs the values.
        let Ok(raw) = self.fetcher.get(&url) else {
            return;
        };
        let Ok(d) = decode(raw, &url, self.hyrax) else {
            return;
        };
        let mut got = Vec::new();
        for i in small {
            if let Ok(v) = self.values_in(i, &d, &url) {
                got.push((i.path.clone(), v));
            }
        }
        if let Ok(mut f) = self.fetched.lock() {
            f.extend(got);
        }
    }
}

impl DatasetSource for Dap4Source {
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
}

/// [`super::check_response`]'s work: the number of variables found.
pub(super) fn decode_for_fuzz(raw: Vec<u8>) -> std::result::Result<usize, String> {
    decode(raw, "fuzz", false)
        .map(|d| d.vars.len())
        .map_err(|e| e.to_string())
}
