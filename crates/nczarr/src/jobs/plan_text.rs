//! What a dry run of a copy says (`nczcopy --dry-run`): the output's kind, and per
//! variable its chunks, codecs and bytes, then the memory the copy needs, as text.

use std::io::{self, Write};

use super::copy_request::CopyPlan;
use super::kind::OutputKind;
use crate::copy::cost::CopyCost;
use crate::copy::MemoryBudget;
use crate::formats::NcFileKind;
use crate::json::Json;

impl CopyPlan {
    /// The plan as nczcopy prints it: the kind, what would be refused at `output`,
    /// then each variable and the total, for a copy given `budget`.
    ///
    /// # Errors
    /// Writing to `out`.
    pub fn write_text(
        &self,
        out: &mut dyn Write,
        output: &str,
        budget: MemoryBudget,
    ) -> io::Result<()> {
        writeln!(out, "output: {}", kind_text(self.kind, self.kind_said))?;
        if let Some(refusal) = &self.refusal {
            writeln!(
                out,
                "note: {output}: {}",
                refusal.replace(['\n', '\r'], " ")
            )?;
        }
        print_cost(out, &self.cost, budget, self.kind.is_netcdf4_file())
    }
}

/// What `--dry-run` calls an output kind.
fn kind_text(kind: OutputKind, said: bool) -> String {
    let name = match kind {
        OutputKind::Nczarr => {
            "NCZarr (Zarr version 2 with netCDF metadata, netcdf-c 4.10's layout)"
        }
        OutputKind::Zarr => "pure Zarr version 2",
        OutputKind::Zarr3 => "Zarr version 3",
        OutputKind::Icechunk => {
            "an Icechunk repository (Zarr version 3), committed as one snapshot"
        }
        OutputKind::File(k) => return file_kind_text(k, said),
    };
    if said {
        name.to_string()
    } else {
        format!("{name}, as the input's Zarr version (-k to choose)")
    }
}

fn file_kind_text(kind: NcFileKind, said: bool) -> String {
    let name = match kind {
        NcFileKind::Classic => "a netCDF classic file (CDF-1)",
        NcFileKind::Offset64 => "a netCDF 64-bit offset file (CDF-2)",
        NcFileKind::Cdf5 => "a netCDF 64-bit data file (CDF-5)",
        NcFileKind::Netcdf4 => "a netCDF-4 file",
        NcFileKind::Netcdf4Classic => "a netCDF-4 classic model file",
    };
    if said {
        name.to_string()
    } else {
        format!("{name}, as the output's name and the input's kind say (-k to choose)")
    }
}

fn chunk_text(c: Option<&[u64]>) -> String {
    c.map_or_else(
        || "one piece".to_string(),
        |c| {
            let parts: Vec<String> = c.iter().map(u64::to_string).collect();
            parts.join("x")
        },
    )
}

fn codecs_text(codecs: &[Json]) -> String {
    let parts: Vec<String> = codecs.iter().map(Json::to_text).collect();
    format!("[{}]", parts.join(", "))
}

/// `--dry-run`: what would be read and written, and with how much memory.
/// `netcdf4`: the output is a netCDF-4 file, whose readers need netcdf-c's plugins for
/// filters HDF5 does not have built in.
fn print_cost(
    out: &mut dyn Write,
    cost: &CopyCost,
    budget: MemoryBudget,
    netcdf4: bool,
) -> io::Result<()> {
    for v in &cost.vars {
        writeln!(out, "{} {}{:?}", v.nc_type, v.path, v.shape)?;
        writeln!(
            out,
            "  chunks: {} -> {}",
            chunk_text(v.input.chunk_shape()),
            chunk_text(v.output.chunk_shape())
        )?;
        writeln!(
            out,
            "  codecs: {} -> {}",
            codecs_text(&v.input.codecs),
            codecs_text(&v.output.codecs)
        )?;
        for id in v.output.codec_ids().filter(|_| netcdf4) {
            if let Some(filter) = crate::codec::table::spec(id)
                .and_then(|s| s.hdf5)
                .filter(|f| *f > 3)
            {
                writeln!(
                    out,
                    "  note: {id} is HDF5 filter {filter}: netcdf-c and h5py read it only with its plugin (HDF5_PLUGIN_PATH; netCDF4-python's wheels carry it)"
                )?;
            }
        }
        if !v.copied {
            writeln!(out, "  values: none copied")?;
            continue;
        }
        writeln!(
            out,
            "  values: {} bytes to read; {} bytes stored before compression{}",
            v.bytes,
            v.stored,
            padding_text(v.bytes, v.stored)
        )?;
    }
    writeln!(
        out,
        "total: {} bytes of values, {} bytes stored before compression{}; memory: about {} MiB for values (--memory {} MiB)",
        cost.bytes,
        cost.stored,
        padding_text(cost.bytes, cost.stored),
        cost.memory.div_ceil(1 << 20),
        budget.total >> 20
    )?;
    Ok(())
}

/// ` (N% padding in edge chunks)` when stored exceeds the values.
fn padding_text(values: u64, stored: u64) -> String {
    if stored > values && values > 0 {
        format!(
            " ({:.1}% padding in edge chunks)",
            (stored - values) as f64 * 100.0 / values as f64
        )
    } else {
        String::new()
    }
}
