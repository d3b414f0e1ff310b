#!/usr/bin/env python3
"""Regenerate the golden-output corpus of nczdump from the CDL cases.

For every case `cases/<case>.cdl` this script

1. compiles it with `ncgen -4` into a temporary `<case>.nc` and writes
   `ncdump <case>.nc` to `expected/<case>.cdl` (the golden output);
2. lets every writer (see WRITERS) write the case as a Zarr / NCZarr directory
   store `stores/<writer>/<case>.file/`;
3. runs `nczdump stores/<writer>/<case>.file` and compares its output with
   `expected/<case>.cdl` byte for byte;
4. records one line per (case, writer) in `manifest.tsv`:
   `case<TAB>writer<TAB>status<TAB>reason`, status being `match`,
   `differs` or `write-fail`.  The reason of a `differs` line comes from
   KNOWN_DIFFERENCES (an explained difference) or starts with `UNEXPLAINED`;
   the difference itself is written to `diffs/<writer>/<case>.diff`.

It deletes and recreates `expected/`, `stores/`, `diffs/` and `manifest.tsv`;
`cases/` is the only input.  All paths are relative to this file, so it works
from any clone.  Usage, from anywhere (PYTHON: an interpreter with the
libraries below; it defaults to the one running the script):

    PYTHON=/path/to/venv/bin/python python3 tests/cli/data/golden/make_golden.py
        [--only CASE,CASE] [--keep-nc DIR]

Requirements (the versions used are written at the top of manifest.tsv):
  * Debian netcdf-bin 4.9.0: `ncgen`, `ncdump` on PATH (or env NCGEN, NCDUMP);
  * a Python with netCDF4 (1.7.x, bundling netcdf-c 4.10.x), zarr 3, xarray,
    numcodecs and numpy (env PYTHON, default: the interpreter running this);
  * the nczdump binary: env NCZDUMP, default <repo>/target/debug/nczdump
    (build it first with `cargo build`).

The library writers run in child processes (this script with --worker) so that
a crash inside a library is recorded as a write failure.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[3]                    # tests/cli/data/golden -> repository
CASES = HERE / "cases"
EXPECTED = HERE / "expected"
STORES = HERE / "stores"
DIFFS = HERE / "diffs"
MANIFEST = HERE / "manifest.tsv"

NCGEN = os.environ.get("NCGEN", "ncgen")
NCDUMP = os.environ.get("NCDUMP", "ncdump")
NCZDUMP = os.environ.get("NCZDUMP", str(REPO / "target" / "debug" / "nczdump"))
# Interpreter of the library workers: env PYTHON, else the one running this script.
PYTHON = os.environ.get("PYTHON", sys.executable)
TIMEOUT_S = 120

# Writers, in manifest order: name -> one-line description.
WRITERS = {
    "ncgen49-nczarr": "netcdf-c 4.9.0 ncgen -4 -lb into file://...#mode=nczarr,file",
    "ncgen49-zarr": "netcdf-c 4.9.0 ncgen -4 -lb into file://...#mode=zarr,file (pure Zarr)",
    "nc410-nczarr": "netCDF4-python (bundled netcdf-c) copies the ncgen -4 file into "
                    "file://...#mode=nczarr,file",
    "zarrpy": "zarr-python 3 writes zarr_format=2 arrays from the ncgen -4 file "
              "(_ARRAY_DIMENSIONS, fill_value = _FillValue or null, char -> |S1)",
    "xarray": "xarray open_dataset(decode_cf=False).to_zarr(zarr_format=2, "
              "consolidated=True), one call per group",
}

# Explained differences: (case, writer) -> why nczdump's output of that store
# cannot equal ncdump's output of the netCDF-4 file.  Each one was checked
# against the store's JSON: the information is missing from (or altered in)
# the store, so it is a limitation or bug of the writer, not of nczdump.
# A difference not listed here is reported as UNEXPLAINED.
# A reason starting with "SUSPECTED NCZDUMP BUG" is the opposite: the store
# holds the information and nczdump does not show it as ncdump would.
UNTYPED = ("writer: pure Zarr attributes are untyped JSON, so byte/short/ubyte/ushort "
           "attributes read back as int, float ones as double, 3000000000LL as uint")
NO_UNLIMITED = "writer: Zarr has no unlimited dimensions; {dim} is stored as a fixed {n}"
SUBGROUP_DIMS = ("writer: netcdf-c 4.9.0 in mode=zarr writes no _ARRAY_DIMENSIONS for "
                 "variables of subgroups, so their dimensions are anonymous "
                 "(_Anonymous_Dim_N, as netcdf-c 4.10 names them)")
KNOWN_DIFFERENCES: dict[tuple[str, str], str] = {
    ("attr_types", "ncgen49-zarr"): UNTYPED,
    ("attr_types", "zarrpy"): UNTYPED + "; float32 values widened to double show "
                              "15 digits (1.00000001504747e+30)",
    ("attr_types", "xarray"): UNTYPED + "; float32 values widened to double show "
                              "15 digits (1.00000001504747e+30)",
    ("char_json_unicode", "nc410-nczarr"): (
        "writer: netcdf-c 4.10.1 stores char attribute text that parses as JSON as a "
        "JSON value: the spacing is lost ([1,2,3] and [1, 2, 3] are both stored as "
        "[1,2,3]; nczdump prints json.dumps spelling) and \"quoted\" loses its "
        "quotes; it also truncates a char attribute at its first non-ASCII byte "
        "(\"café 日本\" stored as \"caf\")"),
    ("empty_dims", "zarrpy"): NO_UNLIMITED.format(dim="zero", n="0"),
    ("empty_dims", "xarray"): NO_UNLIMITED.format(dim="zero", n="0"),
    ("unlimited", "zarrpy"): NO_UNLIMITED.format(dim="time", n="4"),
    ("unlimited", "xarray"): NO_UNLIMITED.format(dim="time", n="4"),
    ("nested_groups", "ncgen49-zarr"): SUBGROUP_DIMS,
    ("odd_names", "ncgen49-zarr"): SUBGROUP_DIMS,
    ("numeric_types", "xarray"): ("writer: xarray gives float variables without "
                                  "_FillValue a NaN zarr fill_value, shown as _FillValue"),
    ("strings", "xarray"): ("SUSPECTED NCZDUMP BUG: nczdump prints a comment line "
                            "'// names: Zarr dtype <U14 (fixed-length UTF-32) shown as "
                            "string' for each <U variable, which ncdump never prints; "
                            "types and data are right"),
}

# Why a writer cannot write a case: (case, writer) -> explanation added to the
# writer's own error message.
NCGEN49 = "netcdf-c 4.9.0 NCZarr cannot write "
KNOWN_WRITE_FAILURES: dict[tuple[str, str], str] = {
    ("empty_dims", "ncgen49-nczarr"): NCGEN49 + "unlimited (here zero-length) dimensions",
    ("empty_dims", "ncgen49-zarr"): NCGEN49 + "unlimited (here zero-length) dimensions",
    ("unlimited", "ncgen49-nczarr"): NCGEN49 + "unlimited dimensions",
    ("unlimited", "ncgen49-zarr"): NCGEN49 + "unlimited dimensions",
    ("strings", "ncgen49-nczarr"): NCGEN49 + "the string type",
    ("strings", "ncgen49-zarr"): NCGEN49 + "the string type",
}


# ---------------------------------------------------------------------------
# Running commands
# ---------------------------------------------------------------------------

def run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    """Run a command, capturing bytes; a timeout becomes returncode -9."""
    try:
        return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=TIMEOUT_S, **kwargs)
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(argv, -9, exc.stdout or b"",
                                           (exc.stderr or b"") + b"\ntimed out")
    except OSError as exc:
        return subprocess.CompletedProcess(argv, 127, b"", str(exc).encode())


def error_line(result: subprocess.CompletedProcess) -> str:
    """The most telling line of a failed command's output, without local paths."""
    text = (result.stderr or b"").decode("utf-8", "replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if not lines:
        lines = [f"exit status {result.returncode}"]
    tool = [line for line in lines if line.startswith(("ncgen:", "ncdump:"))]
    errors = [line for line in lines if re.match(r"^\w*(Error|Exception)\b", line)]
    line = (tool or errors or lines)[-1]
    line = re.sub(r"file://\S*?#mode=\w+,file", "<url>", line)
    line = line.replace(str(HERE) + "/", "").replace("\t", " ")
    return line[:200]


def nczarr_url(path: Path, mode: str) -> str:
    return f"file://{path}#mode={mode},file"


# ---------------------------------------------------------------------------
# Worker side (child processes): writers using the Python libraries
# ---------------------------------------------------------------------------

NC_TYPE_CODES = {1: "byte", 2: "char", 3: "short", 4: "int", 5: "float", 6: "double",
                 7: "ubyte", 8: "ushort", 9: "uint", 10: "int64", 11: "uint64",
                 12: "string"}


def netcdf_c_library():
    """The libnetcdf loaded by netCDF4-python, through ctypes (or None)."""
    import ctypes
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if os.path.basename(path).startswith("libnetcdf") and os.path.exists(path):
                return ctypes.CDLL(path)
    return None


def attribute_type(group_id: int, var_id: int, name: str, value) -> str:
    """netCDF type of an attribute: netCDF4-python returns char and a
    one-element string attribute both as str, nc_inq_atttype tells them apart."""
    import ctypes
    library = netcdf_c_library()
    if library is not None:
        code = ctypes.c_int()
        if library.nc_inq_atttype(group_id, var_id, name.encode(), ctypes.byref(code)) == 0:
            return NC_TYPE_CODES.get(code.value, "other")
    return "char" if isinstance(value, str) else "string" if isinstance(value, list) else "number"


def walk_groups(group):
    """A netCDF4-python group and its descendants, parents first."""
    yield group
    for child in group.groups.values():
        yield from walk_groups(child)


def find_group(dataset, path: str):
    group = dataset
    for name in [part for part in path.split("/") if part]:
        group = group.groups[name]
    return group


def raw_data(variable):
    """Values without masking, scaling or joining of chars into strings."""
    variable.set_auto_maskandscale(False)
    variable.set_auto_chartostring(False)
    return variable[...]


def explicit_fill(variable):
    return variable.getncattr("_FillValue") if "_FillValue" in variable.ncattrs() else None


def copy_attributes(source, target, group_id: int, var_id: int) -> None:
    """Copy attributes with their netCDF types (char and string kept apart)."""
    for name in source.ncattrs():
        if name == "_FillValue":
            continue                            # given when the variable is created
        value = source.getncattr(name)
        kind = attribute_type(group_id, var_id, name, value)
        if kind == "string":
            target.setncattr_string(name, value)
        elif kind == "char":
            # bytes: netCDF4-python would store a non-ASCII str as NC_STRING
            target.setncattr(name, value.encode("utf-8"))
        else:
            target.setncattr(name, value)


def copy_group_nc(source, target, target_root) -> None:
    """netCDF4-python copy of one group (dims, attributes, variables), then subgroups."""
    for name, dim in source.dimensions.items():
        target.createDimension(name, None if dim.isunlimited() else len(dim))
    copy_attributes(source, target, source._grpid, -1)
    for variable in source.variables.values():
        dims = [find_group(target_root, dim.group().path).dimensions[dim.name]
                for dim in variable.get_dims()]
        filters = variable.filters() or {}
        chunking = variable.chunking()
        copy = target.createVariable(
            variable.name, variable.datatype, dims, fill_value=explicit_fill(variable),
            zlib=bool(filters.get("zlib")), complevel=filters.get("complevel") or 4,
            shuffle=bool(filters.get("shuffle")),
            chunksizes=chunking if isinstance(chunking, list) else None,
            endian=variable.endian())
        copy_attributes(variable, copy, source._grpid, variable._varid)
        if variable.size:
            copy.set_auto_maskandscale(False)
            copy.set_auto_chartostring(False)
            copy[...] = raw_data(variable)
    for name, child in source.groups.items():
        copy_group_nc(child, target.createGroup(name), target_root)


def write_nc410(nc_path: str, store: str) -> None:
    """netCDF4-python copies the netCDF-4 file into a mode=nczarr,file store."""
    import netCDF4
    with netCDF4.Dataset(nc_path, "r") as source, \
            netCDF4.Dataset(nczarr_url(Path(store), "nczarr"), "w",
                            format="NETCDF4") as target:
        copy_group_nc(source, target, target)


def zarr_attribute(value):
    """An attribute value as a zarr user stores it: str, list of str, number(s)."""
    import numpy
    if isinstance(value, (str, list)):
        return value
    items = [item.item() for item in numpy.atleast_1d(value)]
    return items[0] if len(items) == 1 else items


def write_zarr_group(source, target) -> None:
    """zarr-python: one netCDF group as a zarr_format=2 group, then subgroups."""
    import numcodecs
    import numpy
    target.attrs.update({name: zarr_attribute(source.getncattr(name))
                         for name in source.ncattrs()})
    for name, variable in source.variables.items():
        if variable.dtype == str:
            dtype = str                         # variable-length UTF-8 strings
        elif numpy.dtype(variable.dtype).kind == "S":
            dtype = numpy.dtype(variable.dtype)  # char -> |S1
        else:
            dtype = numpy.dtype(variable.dtype).newbyteorder(
                ">" if variable.endian() == "big" else "<")
        settings = variable.filters() or {}
        compressor = numcodecs.Zlib(level=settings["complevel"]) if settings.get("zlib") else None
        filters = "auto"
        if settings.get("shuffle"):
            filters = [numcodecs.Shuffle(elementsize=numpy.dtype(variable.dtype).itemsize)]
        chunking = variable.chunking()
        chunks = chunking if isinstance(chunking, list) else variable.shape
        attributes = {key: zarr_attribute(variable.getncattr(key))
                      for key in variable.ncattrs() if key != "_FillValue"}
        attributes["_ARRAY_DIMENSIONS"] = list(variable.dimensions)
        array = target.create_array(
            name, shape=variable.shape, dtype=dtype,
            chunks=tuple(max(1, length) for length in chunks),
            fill_value=explicit_fill(variable), compressors=compressor, filters=filters,
            attributes=attributes)
        if variable.size:
            array[...] = raw_data(variable)
    for name, child in source.groups.items():
        write_zarr_group(child, target.create_group(name))


def write_zarrpy(nc_path: str, store: str) -> None:
    import netCDF4
    import zarr
    with netCDF4.Dataset(nc_path, "r") as source:
        write_zarr_group(source, zarr.open_group(store, mode="w", zarr_format=2))


def write_xarray(nc_path: str, store: str) -> None:
    """xarray, raw values (decode_cf=False), xarray's defaults otherwise."""
    import netCDF4
    import xarray
    with netCDF4.Dataset(nc_path, "r") as source:
        paths = [group.path for group in walk_groups(source)]
    for index, path in enumerate(paths):
        with xarray.open_dataset(nc_path, group=path, engine="netcdf4",
                                 decode_cf=False) as dataset:
            dataset.to_zarr(store, group=path.strip("/") or None,
                            mode="w" if index == 0 else "a",
                            zarr_format=2, consolidated=True)


def library_versions() -> dict:
    import netCDF4
    import numcodecs
    import numpy
    import xarray
    import zarr
    return {"python": sys.version.split()[0], "netCDF4-python": netCDF4.__version__,
            "netcdf-c in netCDF4-python": netCDF4.__netcdf4libversion__,
            "zarr": zarr.__version__, "xarray": xarray.__version__,
            "numcodecs": numcodecs.__version__, "numpy": numpy.__version__}


WORKER_OPERATIONS = {"nc410-nczarr": write_nc410, "zarrpy": write_zarrpy,
                     "xarray": write_xarray}


def worker_main(operation: str, args: list) -> int:
    import warnings
    warnings.simplefilter("ignore")
    if operation == "versions":
        print(json.dumps(library_versions()))
        return 0
    WORKER_OPERATIONS[operation](*args)
    return 0


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def tool_versions() -> list:
    """`# name: version` lines for the manifest header."""
    usage = run([NCDUMP])
    text = (usage.stdout + usage.stderr).decode("utf-8", "replace")
    match = re.search(r"netcdf library version (\S+)", text)
    lines = [f"ncgen/ncdump: netcdf library version {match.group(1) if match else 'unknown'}"]
    result = run([PYTHON, str(Path(__file__).resolve()), "--worker", "versions"])
    if result.returncode != 0:
        sys.exit(f"{PYTHON} cannot import netCDF4, zarr, xarray and numcodecs "
                 f"({error_line(result)}): set PYTHON to an interpreter that can")
    for name, version in json.loads(result.stdout).items():
        lines.append(f"{name}: {version}")
    nczdump = run([NCZDUMP, "--version"])
    lines.append(f"nczdump: {nczdump.stdout.decode().strip() or 'unknown'}")
    return lines


def write_store(writer: str, case: str, cdl: Path, nc: Path, store: Path):
    """Write one store; returns None on success or the failure reason."""
    if writer in ("ncgen49-nczarr", "ncgen49-zarr"):
        mode = "nczarr" if writer == "ncgen49-nczarr" else "zarr"
        result = run([NCGEN, "-4", "-lb", "-o", nczarr_url(store, mode), str(cdl)])
    else:
        result = run([PYTHON, str(Path(__file__).resolve()), "--worker", writer,
                      str(nc), str(store)])
    if result.returncode != 0 or not store.is_dir():
        return error_line(result)
    return None


def compare(store: Path, expected: bytes, diff_file: Path):
    """(status, reason) of nczdump's output for a store against the golden CDL;
    a difference is also written to diff_file as a unified diff."""
    dumped = run([NCZDUMP, str(store.relative_to(HERE))], cwd=HERE)
    if dumped.returncode != 0:
        return "differs", "nczdump failed: " + error_line(dumped)
    if dumped.stdout == expected:
        return "match", ""
    case = store.name.rsplit(".", 1)[0]
    diff_file.parent.mkdir(parents=True, exist_ok=True)
    diff_file.write_text("".join(difflib.unified_diff(
        expected.decode("utf-8", "replace").splitlines(keepends=True),
        dumped.stdout.decode("utf-8", "replace").splitlines(keepends=True),
        f"expected/{case}.cdl", f"nczdump {store.relative_to(HERE)}")))
    got = dumped.stdout.decode("utf-8", "replace").splitlines()
    want = expected.decode("utf-8", "replace").splitlines()
    for number, (a, b) in enumerate(zip(want, got), 1):
        if a != b:
            return "differs", f"line {number}: expected {a.strip()!r}, got {b.strip()!r}"
    return "differs", f"expected {len(want)} lines, got {len(got)}"


def main(argv: list) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--only", help="comma-separated case names: regenerate only "
                        "these, keeping the outputs and manifest lines of the others")
    parser.add_argument("--keep-nc", help="directory to keep the ncgen -4 .nc files in")
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker[0], args.worker[1:])

    if not Path(NCZDUMP).exists():
        sys.exit(f"nczdump not found at {NCZDUMP}: build it (cargo build) or set NCZDUMP")
    versions = tool_versions()              # fails early without the libraries
    cases = sorted(path.stem for path in CASES.glob("*.cdl"))
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - set(cases)
        if unknown:
            sys.exit(f"unknown cases: {', '.join(sorted(unknown))}")
        cases = [case for case in cases if case in wanted]
    else:
        for directory in (EXPECTED, STORES, DIFFS):
            shutil.rmtree(directory, ignore_errors=True)
        MANIFEST.unlink(missing_ok=True)
    EXPECTED.mkdir(exist_ok=True)
    for writer in WRITERS:
        (STORES / writer).mkdir(parents=True, exist_ok=True)

    rows = []
    if args.only and MANIFEST.exists():
        rows = [tuple(line.split("\t")) for line in MANIFEST.read_text().splitlines()
                if line and not line.startswith("#")]
        rows = [row for row in rows if row[0] not in cases]
    with tempfile.TemporaryDirectory(prefix="golden-") as temp:
        nc_dir = Path(args.keep_nc).resolve() if args.keep_nc else Path(temp)
        nc_dir.mkdir(parents=True, exist_ok=True)
        for case in cases:
            cdl = CASES / f"{case}.cdl"
            nc = nc_dir / f"{case}.nc"
            nc.unlink(missing_ok=True)
            compiled = run([NCGEN, "-4", "-o", str(nc), str(cdl)])
            if compiled.returncode != 0:
                sys.exit(f"{case}: ncgen -4 failed: {error_line(compiled)}")
            dumped = run([NCDUMP, str(nc)])
            if dumped.returncode != 0:
                sys.exit(f"{case}: ncdump failed: {error_line(dumped)}")
            expected = dumped.stdout
            (EXPECTED / f"{case}.cdl").write_bytes(expected)
            for writer in WRITERS:
                store = STORES / writer / f"{case}.file"
                shutil.rmtree(store, ignore_errors=True)
                diff_file = DIFFS / writer / f"{case}.diff"
                diff_file.unlink(missing_ok=True)
                failure = write_store(writer, case, cdl, nc, store)
                if failure is not None:
                    shutil.rmtree(store, ignore_errors=True)
                    status, reason = "write-fail", failure
                    known = KNOWN_WRITE_FAILURES.get((case, writer))
                    if known:
                        reason = f"{known} ({failure})"
                else:
                    status, reason = compare(store, expected, diff_file)
                    if status == "differs":
                        known = KNOWN_DIFFERENCES.get((case, writer))
                        reason = known if known else "UNEXPLAINED: " + reason
                    elif (case, writer) in KNOWN_DIFFERENCES:
                        print(f"note: {case} {writer} matches now; its "
                              "KNOWN_DIFFERENCES entry is stale", file=sys.stderr)
                rows.append((case, writer, status, reason))
                print(f"{case:16} {writer:15} {status:10} {reason}", file=sys.stderr)

    header = ["# nczdump golden corpus, generated by make_golden.py; do not edit by hand.",
              "# columns: case, writer, status (match | differs | write-fail), reason",
              "# match: nczdump stores/<writer>/<case>.file == expected/<case>.cdl byte "
              "for byte; differs: see diffs/<writer>/<case>.diff",
              "# tool versions:"]
    header += [f"#   {line}" for line in versions]
    header += [f"# writer {name}: {text}" for name, text in WRITERS.items()]
    order = list(WRITERS)
    rows.sort(key=lambda row: (row[0], order.index(row[1]) if row[1] in order else 99))
    lines = header + ["\t".join(row) for row in rows]
    MANIFEST.write_text("\n".join(lines) + "\n")
    counts: dict = {}
    for _, writer, status, _ in rows:
        counts.setdefault(writer, {}).setdefault(status, 0)
        counts[writer][status] += 1
    for writer, by_status in counts.items():
        print(writer, by_status, file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
