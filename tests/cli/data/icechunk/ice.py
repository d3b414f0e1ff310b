"""Icechunk repositories made and read by icechunk-python, xarray and VirtualiZarr, for
the Icechunk tests (tests/cli/icechunk). Python >= 3.12 (icechunk 2.3, virtualizarr 2.8).

    ice.py history DIR          repository DIR/hist.ice written by xarray in three
                                commits (tag v1, branch dev) and DIR/{v1,main,dev}.nc
                                holding what each version holds; prints the ids as JSON
    ice.py virtual DIR          VirtualiZarr's repository DIR/virt.ice of three netCDF-4
                                files DIR/f*.nc, and DIR/joined.nc of the same values
    ice.py outside DIR          DIR/outside.ice, whose one chunk refers to a file outside
                                the repository's declared virtual chunk container
    ice.py same REPO VERSION NC xarray reads REPO's VERSION (branch:NAME, tag:NAME,
                                snapshot:ID) as it reads the netCDF file NC: values,
                                masks, types, attributes; exit 1 naming the difference
    ice.py log REPO             main's snapshots (id message), then branches and tags
"""

import json
import os
import sys
import warnings

os.environ.setdefault("ICECHUNK_LOG", "error")

import numpy as np
import xarray as xr
import icechunk
import icechunk.credentials

warnings.filterwarnings("ignore")


def storage(path):
    """A local path, or `s3://bucket/prefix` on the server ICE_S3_ENDPOINT names (with
    AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)."""
    if path.startswith("s3://"):
        bucket, _, prefix = path[5:].partition("/")
        return icechunk.s3_storage(
            bucket=bucket,
            prefix=prefix,
            endpoint_url=os.environ["ICE_S3_ENDPOINT"],
            allow_http=True,
            force_path_style=True,
            region="us-east-1",
            access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
            secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
        )
    return icechunk.local_filesystem_storage(os.path.abspath(path))


def open_repo(path):
    """The repository, every declared container authorised (as a reader trusting it)."""
    config = icechunk.Repository.fetch_config(storage(path))
    prefixes = [c.url_prefix for c in (config.virtual_chunk_containers or {}).values()] if config else []
    auth = {p: icechunk.credentials.LocalFileSystemAccess if p.startswith("file://") else None for p in prefixes}
    return icechunk.Repository.open(storage(path), authorize_virtual_chunk_access=auth or None)


def session(repo, version):
    kind, _, name = version.partition(":")
    if kind == "branch":
        return repo.readonly_session(branch=name)
    if kind == "tag":
        return repo.readonly_session(tag=name)
    return repo.readonly_session(snapshot_id=name)


def history(d):
    time = np.arange(4)
    tas = np.arange(4 * 3 * 5, dtype="f4").reshape(4, 3, 5)
    tas[1, 1, 1] = np.nan
    ds = xr.Dataset(
        {
            "tas": (("time", "lat", "lon"), tas, {"units": "K", "long_name": "air temperature"}),
            "flag": (("lat",), np.array([1, -1, 3], dtype="i2"), {"long_name": "flag"}),
        },
        coords={
            "time": ("time", time, {"units": "days since 2000-01-01", "calendar": "standard"}),
            "lat": ("lat", [-30.0, 0.0, 30.0], {"units": "degrees_north"}),
            "lon": ("lon", np.arange(5) * 72.0, {"units": "degrees_east"}),
        },
        attrs={"title": "history test", "institution": "nowhere"},
    )
    ds.tas.encoding.update(chunks=(2, 3, 5), _FillValue=np.float32(-999.0))
    ds.flag.encoding.update(_FillValue=np.int16(-1))
    repo = icechunk.Repository.create(storage(f"{d}/hist.ice"))
    s = repo.writable_session("main")
    ds.to_zarr(s.store, mode="w", consolidated=False)
    first = s.commit("first four days")
    repo.create_tag("v1", first)
    more = ds.isel(time=[0, 1]).assign_coords(time=[4, 5])
    more["tas"] = more.tas + 100
    more = more.drop_vars(["flag", "lat", "lon"])
    s = repo.writable_session("main")
    more.to_zarr(s.store, append_dim="time", consolidated=False)
    second = s.commit("two more days")
    repo.create_branch("dev", first)
    s = repo.writable_session("dev")
    xr.Dataset({"pr": (("lat",), np.array([0.5, 1.5, 2.5], dtype="f8"), {"units": "mm"})}).to_zarr(
        s.store, mode="a", consolidated=False
    )
    third = s.commit("precipitation on dev")
    for name, version in [("v1", f"tag:v1"), ("main", "branch:main"), ("dev", "branch:dev")]:
        opened = xr.open_zarr(session(repo, version).store, consolidated=False, decode_cf=False)
        opened.load().to_netcdf(f"{d}/{name}.nc", engine="netcdf4")
    print(json.dumps({"first": str(first), "second": str(second), "third": str(third)}))


def virtual(d):
    from obstore.store import LocalStore
    from virtualizarr import open_virtual_mfdataset
    from virtualizarr.parsers import HDFParser
    from virtualizarr.registry import ObjectStoreRegistry

    files = []
    for i in range(3):
        tas = np.arange(4 * 5 * 6, dtype="f4").reshape(4, 5, 6) + 100 * i
        ds = xr.Dataset(
            {"tas": (("time", "y", "x"), tas, {"units": "K"})},
            coords={"time": ("time", np.arange(4) + 4 * i, {"units": "days since 2000-01-01"})},
        )
        ds.tas.encoding.update(chunksizes=(2, 5, 6), zlib=True, _FillValue=np.float32(1e20))
        path = f"{d}/f{i}.nc"
        ds.to_netcdf(path, engine="netcdf4")
        files.append(path)
    registry = ObjectStoreRegistry({"file://": LocalStore()})
    vds = open_virtual_mfdataset(
        [f"file://{f}" for f in files], parser=HDFParser(), registry=registry,
        combine="nested", concat_dim="time", loadable_variables=["time"],
    )
    config = icechunk.RepositoryConfig.default()
    config.set_virtual_chunk_container(
        icechunk.VirtualChunkContainer(f"file://{d}/", icechunk.local_filesystem_store(d))
    )
    repo = icechunk.Repository.create(storage(f"{d}/virt.ice"), config)
    s = repo.writable_session("main")
    vds.vz.to_icechunk(s.store)
    s.commit("three files, virtual")
    parts = [xr.open_dataset(f, decode_cf=False).load() for f in files]
    xr.concat(parts, dim="time").to_netcdf(f"{d}/joined.nc", engine="netcdf4")


def outside(d):
    os.makedirs(f"{d}/inside", exist_ok=True)
    os.makedirs(f"{d}/elsewhere", exist_ok=True)
    data = np.arange(6, dtype="<f4")
    with open(f"{d}/elsewhere/raw.bin", "wb") as f:
        f.write(data.tobytes())
    config = icechunk.RepositoryConfig.default()
    config.set_virtual_chunk_container(
        icechunk.VirtualChunkContainer(f"file://{d}/inside/", icechunk.local_filesystem_store(f"{d}/inside"))
    )
    repo = icechunk.Repository.create(storage(f"{d}/outside.ice"), config)
    s = repo.writable_session("main")
    import zarr
    root = zarr.group(store=s.store)
    root.create_array("v", shape=(6,), chunks=(6,), dtype="<f4", compressors=None, dimension_names=["x"])
    s.store.set_virtual_ref("v/c/0", f"file://{d}/elsewhere/raw.bin", offset=0, length=24, validate_container=False)
    s.commit("a reference outside the container")


def plain(attrs):
    """Attributes as JSON would hold them: numpy scalars and arrays as Python values
    (a netCDF attribute is typed, a Zarr one is JSON)."""
    return json.dumps({k: np.asarray(v).tolist() for k, v in attrs.items()}, sort_keys=True, default=str)


def same(repo_path, version, nc):
    repo = open_repo(repo_path)
    a = xr.open_zarr(session(repo, version).store, consolidated=False).load()
    b = xr.open_dataset(nc).load()
    problems = []
    if set(a.variables) != set(b.variables):
        problems.append(f"variables {sorted(a.variables)} != {sorted(b.variables)}")
    for name in sorted(set(a.variables) & set(b.variables)):
        va, vb = a[name], b[name]
        if va.dims != vb.dims:
            problems.append(f"{name}: dims {va.dims} != {vb.dims}")
            continue
        if va.dtype != vb.dtype:
            problems.append(f"{name}: dtype {va.dtype} != {vb.dtype}")
        x, y = va.values, vb.values
        if x.shape != y.shape:
            problems.append(f"{name}: shape {x.shape} != {y.shape}")
            continue
        if x.dtype.kind in "fc":
            ok = np.array_equal(x, y, equal_nan=True)
        else:
            ok = np.array_equal(x, y)
        if not ok:
            problems.append(f"{name}: values differ: {x.ravel()[:8]} != {y.ravel()[:8]}")
        skip = {"_FillValue", "missing_value", "coordinates", "_Netcdf4Dimid", "_NCProperties"}
        ka = {k: v for k, v in va.attrs.items() if k not in skip}
        kb = {k: v for k, v in vb.attrs.items() if k not in skip}
        if plain(ka) != plain(kb):
            problems.append(f"{name}: attributes {ka} != {kb}")
        fa = va.encoding.get("_FillValue")
        fb = vb.encoding.get("_FillValue")
        if (fa is None) != (fb is None) or (fa is not None and not np.array_equal(fa, fb, equal_nan=True)):
            problems.append(f"{name}: _FillValue {fa!r} != {fb!r}")
    skip = {"_NCProperties", "history"}
    ga = {k: v for k, v in a.attrs.items() if k not in skip}
    gb = {k: v for k, v in b.attrs.items() if k not in skip}
    if plain(ga) != plain(gb):
        problems.append(f"global attributes {ga} != {gb}")
    if problems:
        sys.exit("; ".join(problems))


def log(repo_path):
    repo = icechunk.Repository.open(storage(repo_path))
    for s in repo.ancestry(branch="main"):
        print(s.id, s.message)
    for b in sorted(repo.list_branches()):
        print("branch", b, repo.lookup_branch(b))
    for t in sorted(repo.list_tags()):
        print("tag", t, repo.lookup_tag(t))


if __name__ == "__main__":
    cmd, *args = sys.argv[1:]
    {"history": history, "virtual": virtual, "outside": outside, "same": same, "log": log}[cmd](*args)
