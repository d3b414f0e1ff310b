//! How a read of a DAP2 dataset becomes answers and back: the constraint written as
//! a URL's query, a region cut into pieces that each fit one answer (and fit again
//! under a limit a server states), and an answer's leaves turned into the netCDF
//! values of a variable.

use super::dds::{self, DapType};
use super::view::{self, VarMap};
use super::xdr::{self, Leaf};
use crate::chunking::Region;
use crate::error::{DapError, Error, Result};
use crate::model::Values;

/// Bytes of values one answer carries at most: under the limits servers set on a
/// response (THREDDS's default is 500 MB), and small enough that several in flight
/// overlap the server's work with the transfer.
pub(crate) const ANSWER_BYTES: u64 = 8 << 20;

/// A URL's query with its `%XX` escapes of brackets, colons, commas, selection
/// operators, quotes, spaces and `%` undone (a `%` that escapes anything else stays:
/// a DAP name's `%20` is the name's; `%2520` is that name URL-encoded).
pub(crate) fn decode_query(q: &str) -> String {
    super::names::percent_decode_some(q, |v| b"[]:,&<>=!\" %".contains(&v))
}

/// A constraint expression as a URL's query: every character but letters, digits
/// and `!#$&'()*+,-./:;=?@_~` written `%XX` (brackets, and the `%` of a DAP escape,
/// which the server decodes once for the URL and once for the name).
pub(crate) fn encode_query(ce: &str) -> String {
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
pub(crate) fn pieces(region: &Region, rank: usize, size: u64, limit: u64) -> Vec<Region> {
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
pub(crate) fn to_values(var: &VarMap, leaf: Leaf, region: &Region) -> Result<Values, String> {
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

/// The leaves of a data answer, or why it is not one.
pub(crate) fn decode_answer(body: &[u8], url: &str) -> Result<xdr::Leaves> {
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
pub(crate) fn leaf_values(
    var: &VarMap,
    leaves: xdr::Leaves,
    part: &Region,
    url: &str,
) -> Result<Values> {
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

/// Bytes one value of `var` takes in an answer (a string: its dimension's length).
pub(crate) fn value_size(var: &VarMap) -> u64 {
    if var.ty.is_text() {
        var.string_len.unwrap_or(64)
    } else {
        view::nc_type(var.ty).size() as u64
    }
}

/// True for a server's refusal of an answer as too large (THREDDS: `Request too
/// big=...`; Hyrax: `... exceeds the maximum response size`).
pub(crate) fn too_big(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("too big") || m.contains("too large") || m.contains("exceeds")
}

/// The limit a refusal states, in bytes (THREDDS: `max=500.0` Mbytes), with room for
/// the answer's own description.
pub(crate) fn stated_limit(message: &str) -> Option<u64> {
    let at = message.find("max=")? + 4;
    let number: String = message[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    let mbytes: f64 = number.parse().ok()?;
    Some((mbytes * 1e6 * 0.9) as u64).filter(|&b| b > 0)
}

/// The values of `region` of `all`, an array of `shape` in C order.
pub(crate) fn gather(all: &Values, shape: &[u64], region: &Region) -> Values {
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
pub(crate) fn pick(leaves: xdr::Leaves, projection: &str) -> Option<Leaf> {
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
        assert_eq!(
            decode_query("air.air%5B0:1:1%5D,lat,%20lon,a%2520b"),
            "air.air[0:1:1],lat, lon,a%20b"
        );
    }
}
