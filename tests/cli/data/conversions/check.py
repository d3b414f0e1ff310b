"""The conversion matrix (issue 38): datasets written by netCDF4-python, xarray and
zarr-python are copied by nczcopy to every output kind and through chains of them, and
each copy is read by the readers that read its input. What a reader decodes from the copy
must equal what it decodes from the input: values, dtypes, dimensions, attributes.

Usage: check.py NCZCOPY WORKDIR   (prints one line per case, exits 1 on a difference)

What each output kind promises to each reader (docs/layout.md):
- pure Zarr v2 and Zarr v3 serve xarray exactly (as xarray's own rewrite into the format
  keeps), and zarr-python exactly when the input was Zarr of the same version;
- NCZarr serves netcdf-c (netCDF4-python) exactly, but for char variables, which netcdf-c
  reads as one-character strings unless `--char-dtype netcdf` (that makes zarr-python
  refuse the store); and xarray with equal values: strings as bytes, a scalar over a
  `_scalar_` dimension, netCDF's default fill as NaN where the input holds it;
- netCDF files of the classic family (classic, 64-bit offset, CDF-5) and netCDF-4 files
  serve netcdf-c and xarray as NCZarr does (the same data model): exactly, and equal
  values where xarray decodes a type netCDF does not have (booleans as ubyte, fixed-width
  bytes as str: netCDF has one string type); xarray decodes a netCDF-4 copy alike with its
  h5netcdf engine (h5py, not netcdf-c);
- what no reader reads from the input is not asked of the copy.
"""

import json
import os
import subprocess
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")

NCZCOPY, WORK = sys.argv[1], sys.argv[2]

# ---------------------------------------------------------------- inputs


def write_nc4(path):
    import netCDF4

    d = netCDF4.Dataset(path, "w", format="NETCDF4")
    d.title = "nc4 input"
    d.version = np.int16(3)
    d.createDimension("time", None)
    d.createDimension("x", 5)
    d.createDimension("nchar", 4)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t.calendar = "standard"
    t[:] = [0, 1, 2]
    i = d.createVariable("count", "i4", ("time", "x"), zlib=True, shuffle=True)
    i[:] = np.arange(15, dtype="i4").reshape(3, 5)
    z = d.createVariable("zeros", "i2", ("x",))
    z[:] = [0, 0, 1, 0, 2]
    f = d.createVariable("temp", "f4", ("time", "x"), fill_value=np.float32(-999))
    f.units = "K"
    f.valid_range = np.array([0, 400], "f4")
    f[:] = np.ma.masked_equal(np.arange(15, dtype="f4").reshape(3, 5) * 1.5, 3.0)
    nanf = d.createVariable("nanfill", "f8", ("x",), fill_value=np.nan)
    nanf[:] = np.ma.masked_equal([1.0, 2.0, 7.0, 4.0, 5.0], 7.0)
    part = d.createVariable("partial", "f4", ("x",))
    part[0:3] = [1, 2, 3]  # the rest keeps netCDF's default fill
    u = d.createVariable("flags", "u1", ("x",))
    u[:] = [0, 1, 255, 3, 4]
    big = d.createVariable("big", "i8", ("x",))
    big[:] = [2**40, -1, 0, 5, -(2**40)]
    s = d.createVariable("names", str, ("x",))
    s[:] = np.array(["a", "", "héllo", "b", "longer one"], dtype=object)
    c = d.createVariable("codes", "S1", ("x", "nchar"))
    c[:] = netCDF4.stringtochar(np.array(["ab", "", "wxyz", "q", "rs"], "S4"))
    sc = d.createVariable("scalar", "f8")
    sc[...] = 3.5
    sc.note = "a scalar"
    g = d.createGroup("sub")
    g.setncattr("purpose", "nested")
    g.createDimension("y", 3)
    gv = g.createVariable("gv", "i4", ("y",))
    gv[:] = [7, 8, 9]
    gs = g.createVariable("label", str, ("y",))
    gs[:] = np.array(["x", "yy", ""], dtype=object)
    d.close()


def write_classic(path):
    import netCDF4

    d = netCDF4.Dataset(path, "w", format="NETCDF3_CLASSIC")
    d.history = "classic input"
    d.createDimension("rec", None)
    d.createDimension("n", 3)
    d.createDimension("len", 5)
    a = d.createVariable("a", "i2", ("rec", "n"))
    a.setncattr("factor", np.float32(0.5))
    a[:] = [[1, 2, 3], [4, 5, 6]]
    b = d.createVariable("b", "f8", ("n",))
    b[:] = [0.5, 0.0, -1.25]
    c = d.createVariable("c", "S1", ("n", "len"))
    c[:] = netCDF4.stringtochar(np.array(["one", "two", "three"], "S5"))
    i = d.createVariable("i", "i4", ("n",), fill_value=np.int32(-1))
    i[:] = np.ma.masked_equal([10, -1, 30], -1)
    d.close()


def xr_dataset():
    import xarray as xr

    return xr.Dataset(
        {
            "ints": (("t", "x"), np.arange(12, dtype="i4").reshape(3, 4) - 2),
            "zeros": (("x",), np.array([0, 0, 3, 0], "i8")),
            "floats": (("t",), np.array([0.0, np.nan, 2.5])),
            "f32": (("x",), np.array([1.5, 0.0, -2.0, 4.0], "f4")),
            "flags": (("x",), np.array([True, False, True, False])),
            "names": (("x",), np.array(["a", "", "héllo", "bb"])),
            "bytes": (("t",), np.array([b"ab", b"", b"cde"])),
            "scalar": ((), 7),
            "when": (("t",), np.array(["2001-01-01", "2001-01-02", "2001-01-04"], "datetime64[ns]")),
        },
        coords={"x": np.arange(4) * 10, "t": [1, 2, 3]},
        attrs={"title": "xarray input", "count": 3, "ratio": 0.5},
    ).assign(ints=lambda d: d.ints.assign_attrs(units="m", valid_min=-2))


def packed_dataset():
    """Packed shorts at netCDF's default fill (-32767), as ERA5 and many others write
    them (issue 61), with CF bounds on time and latitude."""
    import xarray as xr

    tas = np.array([[280.0, np.nan, 281.5], [np.nan, 290.1, 275.25]])
    ds = xr.Dataset(
        {
            "tas": (("time", "lat"), tas, {"units": "K", "long_name": "air temperature"}),
            "time_bnds": (("time", "nv"), np.array([[0.0, 1.0], [1.0, 2.0]])),
            "lat_bnds": (("lat", "nv"), np.array([[-90.0, -30.0], [-30.0, 30.0], [30.0, 90.0]])),
        },
        coords={
            "time": ("time", np.array([0.5, 1.5]), {"units": "days since 2000-01-01", "bounds": "time_bnds"}),
            "lat": ("lat", np.array([-60.0, 0.0, 60.0]), {"units": "degrees_north", "bounds": "lat_bnds"}),
        },
        attrs={"title": "packed input"},
    )
    ds.tas.encoding = {"dtype": "int16", "scale_factor": 0.01, "add_offset": 273.15, "_FillValue": -32767}
    return ds


def write_packed_nc4(path):
    """The same with netCDF4-python: an explicit _FillValue at the default."""
    import netCDF4

    d = netCDF4.Dataset(path, "w", format="NETCDF4")
    d.title = "packed netCDF-4"
    d.createDimension("time", None)
    d.createDimension("lat", 3)
    d.createDimension("nv", 2)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t.bounds = "time_bnds"
    t[:] = [0.5, 1.5]
    tb = d.createVariable("time_bnds", "f8", ("time", "nv"))
    tb[:] = [[0, 1], [1, 2]]
    la = d.createVariable("lat", "f4", ("lat",))
    la.units = "degrees_north"
    la.bounds = "lat_bnds"
    la[:] = [-60, 0, 60]
    lb = d.createVariable("lat_bnds", "f4", ("lat", "nv"))
    lb[:] = [[-90, -30], [-30, 30], [30, 90]]
    v = d.createVariable("tas", "i2", ("time", "lat"), fill_value=np.int16(-32767), zlib=True)
    v.scale_factor = np.float32(0.01)
    v.add_offset = np.float32(273.15)
    v.units = "K"
    v.set_auto_maskandscale(False)
    v[:] = np.array([[684, -32767, 834], [-32767, 1695, 210]], "i2")
    d.close()


def write_zarrpy(path, fmt):
    import zarr

    g = zarr.open_group(path, mode="w", zarr_format=fmt)
    g.attrs.update({"source": "zarr-python", "n": 2})
    kw = {"dimension_names": ["x"]} if fmt == 3 else {}
    a = g.create_array("a", shape=(6,), chunks=(2,), dtype="int32", **kw)
    a[:] = [0, 1, 0, 2, 0, 3]  # zeros, and zarr-python's default fill_value 0
    b = g.create_array("b", shape=(6,), chunks=(4,), dtype="float64", **kw)
    b[:4] = [0.0, 1.5, np.nan, 3.0]  # the last chunk is never written
    c = g.create_array("c", shape=(6,), chunks=(3,), dtype="bool", **kw)
    c[:] = [True, False, False, True, True, False]
    if fmt == 2:
        for arr in (a, b, c):
            arr.attrs["_ARRAY_DIMENSIONS"] = ["x"]
    a.attrs["units"] = "counts"


# ---------------------------------------------------------------- readers


def plain(v):
    """A value as JSON: arrays as lists, NaN as "NaN", bytes as text."""
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()] if v.ndim else plain(v.item())
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (np.generic,)):
        return plain(v.item())
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, bytes):
        return {"bytes": v.decode("utf-8", "replace")}
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def read_xarray(path, zarr, engine=None):
    import xarray as xr

    out = {}
    groups = [None]
    if not zarr:
        import netCDF4

        with netCDF4.Dataset(path) as d:
            groups += [g.path for g in walk_nc(d)][1:]
    else:
        import zarr as zp

        root = zp.open_group(store_of(path), mode="r")
        groups += ["/" + k for k, _ in root.groups()]
    for g in groups:
        kw = {"engine": "zarr", "consolidated": None} if zarr else {"engine": engine}
        with xr.open_dataset(store_of(path) if zarr else path, group=g, **kw) as ds:
            ds.load()
            vars_ = {}
            for name, v in ds.variables.items():
                vars_[name] = {
                    "dtype": str(v.dtype),
                    "dims": list(v.dims),
                    "attrs": plain(dict(v.attrs)),
                    "values": plain(np.asarray(v.values).astype(object) if v.dtype.kind == "M" else np.asarray(v.values)),
                }
            out[g or "/"] = {"attrs": plain(dict(ds.attrs)), "vars": vars_}
    return out


def walk_nc(d):
    yield d
    for g in d.groups.values():
        yield from walk_nc(g)


def read_netcdf4(url):
    import netCDF4

    out = {}
    with netCDF4.Dataset(url) as d:
        for g in walk_nc(d):
            vars_ = {}
            for name, v in g.variables.items():
                val = v[...]
                mask = np.ma.getmaskarray(val)
                vars_[name] = {
                    "dtype": str(v.dtype),
                    "dims": list(v.dimensions),
                    "attrs": plain({a: v.getncattr(a) for a in v.ncattrs()}),
                    "values": plain(np.ma.getdata(val)),
                    "mask": plain(mask) if mask.any() else False,
                }
            out[g.path] = {
                "attrs": plain({a: g.getncattr(a) for a in g.ncattrs()}),
                "dims": {k: [len(x), x.isunlimited()] for k, x in g.dimensions.items()},
                "vars": vars_,
            }
    return out


def read_zarr(path):
    import zarr

    out = {}
    root = zarr.open_group(store_of(path), mode="r")
    groups = [("/", root)] + [("/" + k, g) for k, g in root.groups()]
    for gname, g in groups:
        vars_ = {}
        for name, a in g.arrays():
            vars_[name] = {
                "dtype": str(a.dtype),
                "shape": list(a.shape),
                "attrs": plain(dict(a.attrs)),
                "values": plain(a[...]),
            }
        out[gname] = {"attrs": plain(dict(g.attrs)), "vars": vars_}
    return out


def store_of(path):
    """What zarr-python opens for `path`: a zip file through its ZipStore."""
    if path.endswith(".zip"):
        import zarr

        return zarr.storage.ZipStore(path, mode="r")
    return path


def nczarr_url(path):
    return "file://" + os.path.abspath(path) + "#mode=nczarr,file"


def read_xarray_refs(path):
    """What xarray decodes from kerchunk references, through fsspec."""
    import xarray as xr

    with xr.open_dataset(
        "reference://",
        engine="zarr",
        backend_kwargs={"consolidated": False, "storage_options": {"fo": path}},
    ) as ds:
        ds.load()
        vars_ = {
            name: {
                "dtype": str(v.dtype),
                "dims": list(v.dims),
                "attrs": plain(dict(v.attrs)),
                "values": plain(np.asarray(v.values).astype(object) if v.dtype.kind == "M" else np.asarray(v.values)),
            }
            for name, v in ds.variables.items()
        }
        return {"/": {"attrs": plain(dict(ds.attrs)), "vars": vars_}}


def read(reader, path, is_zarr):
    if is_zarr == "refs":
        if reader != "xarray":
            raise RuntimeError("read only by xarray, through fsspec")
        return read_xarray_refs(path)
    if reader == "xarray":
        return read_xarray(path, is_zarr)
    if reader == "netcdf4":
        return read_netcdf4(nczarr_url(path) if is_zarr else path)
    return read_zarr(path)


# ---------------------------------------------------------------- comparison


def strip_internal(attrs):
    return {k: v for k, v in attrs.items() if not k.lower().startswith("_nc")}


def as_text(values):
    """Bytes and str alike as text, for the comparisons that allow either."""
    if isinstance(values, list):
        return [as_text(v) for v in values]
    if isinstance(values, dict) and "bytes" in values:
        return values["bytes"]
    return values


def char_rows(values):
    """netcdf-c's char array (bytes per character) or strings of one character."""
    return as_text(values)


NC_DEFAULT_FILLS = {-127, 255, -32767, 65535, -2147483647, 4294967295, -9223372036854775806, 18446744073709551614, 9.969209968386869e36, 9.969209968386869e36}


def as_float32(values):
    """Values decoded as float64 narrowed to float32, NaN kept."""
    if isinstance(values, list):
        return [as_float32(v) for v in values]
    if isinstance(values, float):
        return float(np.float32(values))
    return values


def equal_values(a, b, loose):
    if a == b:
        return True
    if not loose:
        return False
    a, b = as_text(a), as_text(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal_values(x, y, loose) for x, y in zip(a, b))
    # A netCDF default fill the input shows raw is NaN where xarray masks it.
    if b == "NaN" and (a in NC_DEFAULT_FILLS or (isinstance(a, float) and abs(a - 9.969209968386869e36) < 1e30)):
        return True
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def compare(reader, target, want, got, in_kind):
    """Differences between what `reader` decodes from the input and from its copy."""
    diffs = []
    # NCZarr gives Zarr readers equal values: bytes for strings, ubyte with xarray's
    # `dtype = "bool"` for booleans, a scalar as one element.
    # netCDF files hold the same netCDF data model, with the same conversions.
    loose = reader in ("xarray", "zarr") and target in ("nczarr", "ncfile")
    for g, wg in want.items():
        gg = got.get(g)
        if gg is None:
            diffs.append(f"group {g} missing")
            continue
        if strip_internal(wg["attrs"]) != strip_internal(gg["attrs"]):
            diffs.append(f"{g} attrs {wg['attrs']} != {gg['attrs']}")
        if "dims" in wg and wg["dims"] != gg.get("dims"):
            diffs.append(f"{g} dims {wg['dims']} != {gg.get('dims')}")
        for name, wv in wg["vars"].items():
            gv = gg["vars"].get(name)
            if gv is None:
                diffs.append(f"{g}{name}: missing")
                continue
            wa, ga = strip_internal(wv["attrs"]), strip_internal(gv["attrs"])
            if reader == "netcdf4" and in_kind == "zarr" and "_FillValue" not in wa:
                # netcdf-c shows no _FillValue for a pure Zarr input's fill_value (xarray's
                # _FillValue); the copy carries it as the attribute, for xarray (issue 61).
                ga.pop("_FillValue", None)
            if reader == "zarr" and target == "nczarr":
                # NCZarr keeps a fill as netCDF's _FillValue attribute beside .zarray's,
                # booleans as ubyte marked as xarray marks them, scalars over netcdf-c's
                # `_scalar_` dimension.
                ga.pop("_FillValue", None)
                if wv["dtype"] == "bool" and ga.get("dtype") == "bool":
                    ga.pop("dtype")
                if ga.get("_ARRAY_DIMENSIONS") == ["_scalar_"] and wa.get("_ARRAY_DIMENSIONS") == []:
                    ga["_ARRAY_DIMENSIONS"] = []
            if wa != ga:
                diffs.append(f"{g}{name}: attrs {wa} != {ga}")
            wd, gd = wv.get("dims", wv.get("shape")), gv.get("dims", gv.get("shape"))
            scalar_dim = loose and wd == [] and gd in (["_scalar_"], [1])
            if wd != gd and not scalar_dim:
                diffs.append(f"{g}{name}: dims {wd} != {gd}")
            wvals, gvals = wv["values"], gv["values"]
            if scalar_dim and isinstance(gvals, list) and len(gvals) == 1:
                gvals = gvals[0]
            char_as_string = reader == "netcdf4" and target == "nczarr" and wv["dtype"] == "|S1"
            if char_as_string:
                wvals, gvals = char_rows(wvals), as_text(gvals)
            # xarray decodes packed shorts whose scale_factor is a float32 as float32 from
            # a netCDF file, but as float64 from Zarr, whose JSON attributes have no type
            # (as from xarray's own to_zarr): the same values, at the file's precision.
            packed_f32 = (
                reader == "xarray"
                and wv["dtype"] == "float32"
                and gv["dtype"] == "float64"
                and target in ("nczarr", "zarr", "zarr3")
            )
            if packed_f32:
                gvals = as_float32(gvals)
            if not equal_values(wvals, gvals, loose):
                diffs.append(f"{g}{name}: values {str(wvals)[:200]} != {str(gvals)[:200]}")
            if wv.get("mask", False) != gv.get("mask", False) and not char_as_string:
                diffs.append(f"{g}{name}: masked {wv.get('mask')} != {gv.get('mask')}")
            same_dtype = wv["dtype"] == gv["dtype"]
            allowed = (
                char_as_string
                or (loose and gv["dtype"].startswith(("|S", "object")) and wv["dtype"].startswith(("<U", "|S", "object")))
                or (loose and gv["dtype"].startswith("float") and wv["dtype"].startswith(("int", "uint", "float")))
                # netCDF has one string type: zarr-python's fixed-width bytes are strings
                # in a netCDF file, which xarray reads as str.
                or (loose and target == "ncfile" and wv["dtype"].startswith("|S") and gv["dtype"].startswith(("<U", "object")))
                or (loose and reader == "zarr" and wv["dtype"] == "bool" and gv["dtype"] == "uint8")
                # xarray masks zarr-python's `false` fill of a bool array: objects of
                # True and NaN, where NCZarr's ubyte gives floats of 1 and NaN.
                or (loose and wv["dtype"] == "object" and gv["dtype"].startswith("float"))
                or packed_f32
            )
            if not same_dtype and not allowed:
                diffs.append(f"{g}{name}: dtype {wv['dtype']} != {gv['dtype']}")
    return diffs


# ---------------------------------------------------------------- the matrix


def run_copy(args):
    r = subprocess.run([NCZCOPY, "--quiet", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"nczcopy {' '.join(args)}: {r.stderr.strip()}")


FILE_KINDS = ("classic", "nc6", "cdf5", "nc4", "nc7")


def kind_of(path):
    """The output kind a copy at `path` has, for the promises above ("ncfile" for a
    netCDF file of the classic family or netCDF-4)."""
    if path.endswith(".nc"):
        with open(path, "rb") as f:
            magic = f.read(8)
        return "ncfile" if magic[:3] == b"CDF" or magic == HDF5_MAGIC else "unknown file"
    if path.endswith(".zip"):
        import zipfile

        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            if "zarr.json" in names:
                return "zarr3"
            if ".zattrs" in names and b"_nczarr_superblock" in z.read(".zattrs"):
                return "nczarr"
            return "zarr"
    if os.path.exists(os.path.join(path, "zarr.json")):
        return "zarr3"
    zattrs = os.path.join(path, ".zattrs")
    if os.path.exists(zattrs) and "_nczarr_superblock" in open(zattrs).read():
        return "nczarr"
    return "zarr"


HDF5_MAGIC = b"\x89HDF\r\n\x1a\n"


def out_path(name, kinds, n):
    """Where link `n` of the chain `kinds` of input `name` writes (`K+zip`: a zip)."""
    label = "-".join(x or "default" for x in kinds[: n + 1])
    if kinds[n].endswith("zip"):
        ext = "zip"
    elif kinds[n] in FILE_KINDS or kinds[n] == "nc":
        ext = "nc"
    else:
        ext = "zarr"
    return os.path.join(WORK, f"out-{name}-{label}.{ext}")


def readers_of(path, is_zarr):
    """The readers that read the input at `path`, with what they decode."""
    found = {}
    names = ["xarray", "netcdf4"] + (["zarr"] if is_zarr else [])
    for r in names:
        try:
            found[r] = read(r, path, is_zarr)
        except Exception as e:  # a reader that cannot read the input is not asked
            found[r] = None
            print(f"  (input {os.path.basename(path)}: {r} cannot read it: {str(e)[:120]})")
    return found


def promised(reader, target, input_kind):
    """Whether `target` promises `reader` the input's decoding (see the docstring)."""
    if reader == "xarray":
        return True
    if reader == "netcdf4":
        return target in ("nczarr", "ncfile")
    # zarr-python: exact for Zarr of the same version; NCZarr keeps values and types.
    return (target, input_kind) in (("zarr", "zarr"), ("zarr3", "zarr3"), ("nczarr", "zarr"), ("nczarr", "nczarr"))


def main():
    os.makedirs(WORK, exist_ok=True)
    inputs = {}
    p = os.path.join(WORK, "in-nc4.nc")
    write_nc4(p)
    inputs["nc4"] = (p, False, "nc")
    p = os.path.join(WORK, "in-classic.nc")
    write_classic(p)
    inputs["classic"] = (p, False, "nc")
    ds = xr_dataset()
    for fmt in (2, 3):
        p = os.path.join(WORK, f"in-xr{fmt}.zarr")
        ds.to_zarr(p, zarr_format=fmt, mode="w", consolidated=True)
        inputs[f"xr{fmt}"] = (p, True, "zarr" if fmt == 2 else "zarr3")
        p = os.path.join(WORK, f"in-zp{fmt}.zarr")
        write_zarrpy(p, fmt)
        inputs[f"zp{fmt}"] = (p, True, "zarr" if fmt == 2 else "zarr3")
        # Packed shorts at the default fill (issue 61).
        p = os.path.join(WORK, f"in-xrp{fmt}.zarr")
        packed_dataset().to_zarr(p, zarr_format=fmt, mode="w", consolidated=True)
        inputs[f"xrp{fmt}"] = (p, True, "zarr" if fmt == 2 else "zarr3")
    p = os.path.join(WORK, "in-packed.nc")
    write_packed_nc4(p)
    inputs["packed"] = (p, False, "nc")
    # Kerchunk references to it: ours, and kerchunk's own where it is installed.
    p = os.path.join(WORK, "in-refs.json")
    run_copy(["-k", "kerchunk", inputs["packed"][0], p])
    inputs["refs"] = (p, "refs", "zarr")
    try:
        from kerchunk.hdf import SingleHdf5ToZarr

        p = os.path.join(WORK, "in-kerchunk.json")
        with open(p, "w") as f:
            json.dump(SingleHdf5ToZarr(inputs["packed"][0]).translate(), f)
        inputs["kerchunk"] = (p, "refs", "zarr")
    except ImportError:
        print("  (no kerchunk: its own references are not an input)")

    # Each case: input, the chain of output kinds ("" = nczcopy's default).
    chains = []
    for name in inputs:
        for k in ["", "nczarr", "zarr", "zarr3"]:
            chains.append((name, [k]))
    chains += [
        ("zp3", ["nczarr", "zarr3"]),
        ("xr3", ["zarr", "zarr3"]),
        ("nc4", ["zarr3", "nczarr"]),
        ("nc4", ["nczarr", "nczarr"]),
        ("xr2", ["nczarr", "zarr"]),
        ("classic", ["zarr", "nczarr"]),
        # Zip archives: the default kind, pure Zarr, and back to a directory.
        ("nc4", ["zip"]),
        ("xr2", ["zarr+zip", "nczarr"]),
        ("zp3", ["zip"]),
        # netCDF files of the classic family ("nc": nczcopy's default for a .nc name,
        # the input's kind).
        ("classic", ["classic"]),
        ("classic", ["nc6"]),
        ("classic", ["cdf5"]),
        ("classic", ["nc"]),
        ("classic", ["zarr3", "classic"]),
        ("classic", ["nczarr", "cdf5", "zarr"]),
        ("zp2", ["cdf5"]),
        ("zp3", ["cdf5"]),
        # netCDF-4 files ("nc": the default for a .nc name; a Zarr input's is netCDF-4).
        ("nc4", ["nc"]),
        ("nc4", ["nc4"]),
        ("nc4", ["nczarr", "nc4", "zarr"]),
        ("classic", ["nc7"]),
        ("classic", ["nc4", "classic"]),
        ("xr2", ["nc"]),
        ("xr3", ["nc4"]),
        ("zp2", ["nc4"]),
        ("zp3", ["nc4"]),
        # Packed shorts at the default fill, with CF bounds (issue 61): xarray masks
        # them in every output kind as in the input.
        ("xrp2", ["nc4"]),
        ("xrp2", ["nc"]),
        ("xrp2", ["classic"]),
        ("xrp2", ["zarr3", "nc4"]),
        ("xrp3", ["nc4"]),
        ("packed", ["nc4"]),
        ("packed", ["classic"]),
        ("refs", ["nc4"]),
        ("refs", ["classic"]),
    ]
    if "kerchunk" in inputs:
        chains += [("kerchunk", ["nc4"])]
    failures = 0
    decoded = {name: readers_of(path, is_zarr) for name, (path, is_zarr, _) in inputs.items()}
    for name, kinds in chains:
        path, is_zarr, in_kind = inputs[name]
        src = path
        label = f"{name} -> " + " -> ".join(k or "default" for k in kinds)
        try:
            for n, k in enumerate(kinds):
                out = out_path(name, kinds, n)
                subprocess.run(["rm", "-rf", out])
                kind = k.removesuffix("zip").removesuffix("+")
                if kind == "nc":
                    kind = ""
                run_copy((["-k", kind] if kind else []) + [src, out])
                src = out
        except RuntimeError as e:
            print(f"FAIL {label}: {e}")
            failures += 1
            continue
        target = kind_of(src)
        diffs = []
        for reader, want in decoded[name].items():
            if want is None or not promised(reader, target, in_kind):
                continue
            # Every link of a chain keeps its own promise; the end keeps the weakest.
            links = [kind_of(out_path(name, kinds, n)) for n in range(len(kinds))]
            # netcdf-c is promised NCZarr directories (the wheel has no zip store) and
            # netCDF files.
            if reader == "netcdf4" and (
                any(l not in ("nczarr", "ncfile") for l in links) or src.endswith(".zip")
            ):
                continue
            if reader == "zarr" and not all(promised("zarr", l, in_kind) for l in links):
                continue
            weakest = "nczarr" if "nczarr" in links else target
            try:
                got = read(reader, src, target != "ncfile")
            except Exception as e:
                diffs.append(f"{reader} cannot read the copy: {str(e)[:200]}")
                continue
            diffs += [f"{reader}: {d}" for d in compare(reader, weakest, want, got, in_kind)]
            if reader == "xarray" and kind_of(src) == "ncfile" and open(src, "rb").read(8) == HDF5_MAGIC:
                try:
                    got = read_xarray(src, False, engine="h5netcdf")
                except Exception as e:
                    diffs.append(f"xarray (h5netcdf) cannot read the copy: {str(e)[:200]}")
                    continue
                diffs += [f"xarray (h5netcdf): {d}" for d in compare(reader, weakest, want, got, in_kind)]
        nczarr_dirs = all(kind_of(out_path(name, kinds, n)) == "nczarr" for n in range(len(kinds)))
        if nczarr_dirs and not src.endswith(".zip") and decoded[name]["netcdf4"] is None:
            # NCZarr is for netcdf-c: it opens the copy even where it cannot open the input.
            try:
                read("netcdf4", src, True)
            except Exception as e:
                diffs.append(f"netcdf4 cannot read the NCZarr copy: {str(e)[:200]}")
        if name.startswith(("xr", "zp", "refs", "kerchunk")) and not kinds[0]:
            # nczcopy keeps the input's Zarr version by default.
            expect = "zarr3" if in_kind == "zarr3" else "nczarr"
            if target != expect:
                diffs.append(f"default output kind {target}, expected {expect}")
        if diffs:
            failures += 1
            print(f"FAIL {label} ({target}):")
            for d in diffs:
                print(f"    {d}")
        else:
            print(f"ok   {label} ({target})")
    print(f"{failures} of {len(chains)} conversions differ")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
