"""The HDF5 files of tests/cli/nczdump/other_writers.rs: what h5py (not netcdf-c) writes.

Run with h5py >= 3 from this directory: python3 make.py. Each file is small and
holds one class of issue 39; the .cdl beside it is ncdump 4.9.0's text where ncdump
reads the file right, else ours checked against h5py's values (said in the test).
"""
import h5py
import numpy as np

# Class 8: members in name order (no creation order tracked), phony dimensions
# numbered subgroups first, an unlimited axis, a group in dense storage.
with h5py.File("order_phony.h5", "w", libver="earliest") as f:
    f.create_dataset("u", data=np.arange(4, dtype="i4"), maxshape=(None,), chunks=(2,))
    g = f.create_group("g")
    for name in ["z", "h", "a"]:
        g.create_dataset(name, data=np.arange(3, dtype="i2"))
    f.create_dataset("b", data=np.arange(6, dtype="f8").reshape(2, 3))
    f.create_dataset("m", data=np.ones((2, 2), dtype="u1"))
with h5py.File("dense_group.h5", "w", libver="latest") as f:
    g = f.create_group("many")
    for i in [17, 3, 11, 0, 9, 19, 5, 13, 1, 7, 15, 18, 2, 10, 4, 12, 6, 14, 8, 16]:
        g.create_dataset(f"d{i}", data=np.full(2, i, dtype="i4"))

# Classes 4, 9 and 11: fixed-length strings, a null dataspace, half precision.
with h5py.File("types.h5", "w") as f:
    f.create_dataset("s", data=np.array([b"ab", b"cde", b"x\0y"], dtype="S5"))
    f.create_dataset("c", data=np.array([b"a", b"b"], dtype="S1"))
    f.attrs.create("Test", np.array([b"a   "], dtype="S10"))
    f.attrs["Scal"] = np.bytes_(b"abc")
    f.create_dataset("e", data=h5py.Empty("f4"))
    f.create_dataset("h", data=np.array([1.5, np.inf, -0.0, 65504, 2**-24], dtype="f2"))
    f["h"].attrs.create("valid_max", np.float16(100.5))

# Class 3: attributes whose datatype is a committed (named) type.
with h5py.File("committed.h5", "w") as f:
    f["int_t"] = np.dtype("<i4")
    f.attrs.create("a", np.array([5, 6], dtype="<i4"), dtype=f["int_t"])
    f.create_dataset("v", data=np.arange(2, dtype="i2"))
    f["v"].attrs.create("scalar", 7, dtype=f["int_t"])

# Class 5: hdf5plugin's filters (needs hdf5plugin; the file is kept in git).
try:
    import hdf5plugin
except ImportError:
    hdf5plugin = None
if hdf5plugin is not None:
    with h5py.File("plugins.h5", "w") as f:
        x = (np.arange(1001, dtype="<f4") * 0.25).reshape(7, 143)
        f.create_dataset("lz4", data=x, chunks=(7, 143), **hdf5plugin.LZ4(nbytes=1024))
        f.create_dataset("bs_lz4", data=x, chunks=(7, 143), **hdf5plugin.Bitshuffle(cname="lz4"))
        f.create_dataset("bs_none", data=x, chunks=(7, 143), **hdf5plugin.Bitshuffle(cname="none", nelems=64))
        f.create_dataset("bs_zstd", data=x.astype("<i8"), chunks=(7, 143), **hdf5plugin.Bitshuffle(cname="zstd"))

# Class 3: user-defined types h5py writes without committing them: netcdf-c 4.10
# names them _AnonymousCompound1... in the dataset's group. (user_types.nc, the
# committed ones netCDF-4 writes, is `ncgen -4 -o user_types.nc user_types_src.cdl`;
# user_types.cdl is ncdump 4.9.0's text of it.)
with h5py.File("anonymous.h5", "w") as f:
    point = np.dtype([("x", "<f4"), ("y", "<f4")])
    rec = np.dtype([("p", point), ("n", "<i2", (2,))])
    f.create_dataset("points", data=np.array([(1.5, -2), (3, 4.25)], dtype=point))
    f.create_dataset("recs", data=np.array([((0, 1), (5, 6))], dtype=rec))
    colour = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2}, basetype="u1")
    f.create_dataset("colours", data=np.array([2, 0, 1], dtype="u1"), dtype=colour)
    rows = f.create_dataset("rows", (3,), dtype=h5py.vlen_dtype(np.dtype("<i4")))
    rows[0], rows[1], rows[2] = [1, 2, 3], [], [-4]
    f.create_dataset("raw", data=np.array([b"\x01\x02", b"\xff\x00"], dtype="V2"))
    # Member types of their own (an enum, a vlen string, a fixed string) get names too.
    sex = h5py.enum_dtype({"F": 1, "M": 0}, basetype="u1")
    person = np.dtype([("name", h5py.string_dtype()), ("code", "S4"), ("sex", sex)])
    f.create_dataset("people", data=np.array([("Ann", b"a1", 1), ("Bo", b"b22", 0)], dtype=person))
    # An attribute's own record type too.
    version = np.dtype([("major", "<i4"), ("minor", "<i4"), ("patch", "<i4")])
    f.attrs.create("version", np.array((1, 0, 2), dtype=version))

# Object references (h5py.ref_dtype) in attributes: read as the referenced paths; a
# null reference is a missing string. A dataset of references is left out (one line).
with h5py.File("references.h5", "w") as f:
    g = f.create_group("grp")
    d = g.create_dataset("data", data=np.arange(3, dtype="i4"))
    f.attrs.create("to_data", d.ref, dtype=h5py.ref_dtype)
    d.attrs.create("to_all", np.array([f.ref, g.ref, d.ref, h5py.Reference()], dtype=h5py.ref_dtype))
    f.create_dataset("refs", data=np.array([g.ref, d.ref], dtype=h5py.ref_dtype))
