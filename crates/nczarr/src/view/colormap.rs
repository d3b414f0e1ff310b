//! Colour maps: matplotlib's tables (`colormap_tables.rs`, generated from matplotlib)
//! looked up as matplotlib's `Colormap.__call__` looks them up, so that a position on
//! the scale has the colour matplotlib gives it, byte for byte.

use super::colormap_tables::{NAMES, RGB};

/// One of matplotlib's colour maps, possibly reversed (`NAME_r`).
#[derive(Debug, Clone, Copy)]
pub struct Colormap {
    name: &'static str,
    /// 256 entries of 3 bytes (the reversed map's own table when `reversed`).
    table: &'static [u8],
    reversed: bool,
}

/// The default map for data on one side of 0 (xarray's and matplotlib's).
pub const SEQUENTIAL: &str = "viridis";
/// The default map for data straddling 0 (xarray's).
pub const DIVERGING: &str = "RdBu_r";

impl Colormap {
    /// The map named `name` (matplotlib's spelling; `_r` reverses it); the lookup
    /// ignores case when no map has the exact name.
    pub fn by_name(name: &str) -> Option<Colormap> {
        let (base, reversed) = match name.strip_suffix("_r") {
            Some(b) => (b, true),
            None => (name, false),
        };
        let k = NAMES
            .iter()
            .position(|n| *n == base)
            .or_else(|| NAMES.iter().position(|n| n.eq_ignore_ascii_case(base)))?;
        let t = 2 * k + usize::from(reversed);
        Some(Colormap {
            name: NAMES[k],
            table: RGB.get(t * 768..(t + 1) * 768)?,
            reversed,
        })
    }

    /// xarray's default: [`DIVERGING`] for a scale centred on 0, else [`SEQUENTIAL`].
    pub fn default_for(diverging: bool) -> Colormap {
        let name = if diverging { DIVERGING } else { SEQUENTIAL };
        // Both are in the tables (tested); the first table stands in should they not be.
        Colormap::by_name(name).unwrap_or(Colormap {
            name: NAMES[0],
            table: &RGB[..768],
            reversed: false,
        })
    }

    /// The names of every map (each also reversed with `_r`).
    pub fn names() -> impl Iterator<Item = &'static str> {
        NAMES.iter().copied()
    }

    /// The map's name, as matplotlib spells it.
    pub fn name(&self) -> String {
        if self.reversed {
            format!("{}_r", self.name)
        } else {
            self.name.to_string()
        }
    }

    /// The colour at position `t` of the scale; `None` for NaN (masked: matplotlib's
    /// "bad" colour, transparent). Below 0 is the first colour and above 1 the last
    /// (matplotlib's default under and over colours).
    pub fn rgb(&self, t: f64) -> Option<[u8; 3]> {
        if t.is_nan() {
            return None;
        }
        // As matplotlib: x * N, N itself is N - 1, then truncated towards zero; under
        // is what was below 0 before truncation.
        let x = t * 256.0;
        let i = if x < 0.0 {
            0
        } else if x >= 256.0 {
            255
        } else {
            x as usize
        };
        Some(self.entry(i))
    }

    /// Entry `i` (0 to 255) of the map's table (for inverse lookups).
    pub fn entry(&self, i: usize) -> [u8; 3] {
        let i = i.min(255);
        [
            self.table[3 * i],
            self.table[3 * i + 1],
            self.table[3 * i + 2],
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_reversal() {
        let v = Colormap::by_name("viridis").unwrap();
        assert_eq!(v.rgb(0.0), Some([68, 1, 84]));
        assert_eq!(v.rgb(1.0), Some([253, 231, 36]));
        assert_eq!(v.rgb(f64::NAN), None);
        assert_eq!(v.rgb(-3.0), v.rgb(0.0));
        assert_eq!(v.rgb(7.0), v.rgb(1.0));
        let r = Colormap::by_name("viridis_r").unwrap();
        assert_eq!(r.rgb(0.0), v.rgb(1.0));
        // matplotlib samples a reversed segmented map again: RdBu_r is its own table.
        let (rd, rd_r) = (
            Colormap::by_name("RdBu").unwrap(),
            Colormap::by_name("RdBu_r").unwrap(),
        );
        assert!((0..256).any(|i| rd.entry(255 - i) != rd_r.entry(i)));
        assert_eq!(r.name(), "viridis_r");
        assert_eq!(Colormap::by_name("rdbu_r").unwrap().name(), "RdBu_r");
        assert!(Colormap::by_name("nosuch").is_none());
        assert_eq!(Colormap::names().count(), 20);
        assert_eq!(Colormap::default_for(true).name(), "RdBu_r");
        assert_eq!(Colormap::default_for(false).name(), "viridis");
    }

    #[test]
    fn entries_as_matplotlib_truncates() {
        let v = Colormap::by_name("gray").unwrap();
        // 0.5 * 256 = 128 exactly: entry 128.
        assert_eq!(v.rgb(0.5), Some(v.entry(128)));
        assert_eq!(v.rgb(0.5 - 1e-9), Some(v.entry(127)));
    }
}
