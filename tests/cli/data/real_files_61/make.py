"""The small HDF5 files of tests/cli/nczdump/hdf5_corpus.rs, one per class of issue 61.

Usage: python3 make.py CASE OUT.h5 (h5py >= 3, numpy). Each case reproduces on a
file of our own what a file of the held-out corpus showed; the test compares
nczdump with ncdump 4.9.0 or h5py on it.
"""
import sys
import zlib

import h5py
import numpy as np


def shuffled(raw, size):
    """HDF5's shuffle of `raw` in elements of `size` bytes (a short tail stays)."""
    n = len(raw) // size
    body = np.frombuffer(raw[: n * size], dtype="u1").reshape(n, size)
    return body.T.tobytes() + raw[n * size:]


def shuffle_param(out):
    """Shuffle whose parameter (8) is not the element's size, as PyTables wrote on
    32-bit hosts. A vlen of ints keeps the 8 it is given (libhdf5 sets no size for
    vlen types) and libhdf5 shuffles by it; an int's 4 is set by libhdf5, so its
    one chunk is written re-shuffled by 8 and the parameter patched in the
    (checksum-free, version 1) object header."""
    with h5py.File(out, "w", libver="earliest") as f:
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_chunk((3,))
        dcpl.set_filter(h5py.h5z.FILTER_SHUFFLE, h5py.h5z.FLAG_OPTIONAL, (8,))
        dcpl.set_deflate(4)
        vlen = h5py.h5t.py_create(h5py.vlen_dtype(np.dtype("<i4")), logical=True)
        space = h5py.h5s.create_simple((3,), (3,))
        h5py.h5d.create(f.id, b"v", vlen, space, dcpl=dcpl)
        v = f["v"]
        v[0] = [5, 6]
        v[1] = [5, 6, 7]
        v[2] = [5, 6, 9, 8]
        d = f.create_dataset("i", data=np.arange(1, 17, dtype="<i4"), chunks=(16,),
                             shuffle=True, compression="gzip")
        raw = np.arange(1, 17, dtype="<i4").tobytes()
        d.id.write_direct_chunk((0,), zlib.compress(shuffled(raw, 8)), 0)
    data = bytearray(open(out, "rb").read())
    # A version 1 filter pipeline names its filters: "shuffle\0", then the
    # parameter and a pad.
    old = b"shuffle\0" + (4).to_bytes(4, "little")
    at = data.find(old)
    assert at >= 0 and data.count(old) == 1, "the int's shuffle parameter is not found once"
    data[at + 8:at + 12] = (8).to_bytes(4, "little")
    open(out, "wb").write(bytes(data))


def continued(out):
    """An object header continued in several chunks, one of which holds two
    continuation messages (as HDF5 1.6-era satellite products have): attributes
    added, some deleted, more added, so that libhdf5 moves messages into new chunks
    where it finds room. libhdf5 reads the chunks in the order it meets their
    continuation messages, and lists the attributes in that order."""
    with h5py.File(out, "w", libver="earliest") as f:
        d = f.create_dataset("v", data=np.arange(4, dtype="i4"))
        for k in range(30):
            d.attrs[f"a{k:02d}"] = np.arange((k * 37) % 59 + 1, dtype="i4")
            if k % 7 == 3:
                del d.attrs[f"a{k - 2:02d}"]


def two_scales(out):
    """An axis with two dimension scales attached (x1, then x2), as pyfive's test
    file has: netcdf-c keeps the last that H5DSiterate_scales visits."""
    with h5py.File(out, "w") as f:
        for name, n in [("x1", 2), ("x2", 2), ("y", 3)]:
            f.create_dataset(name, data=np.arange(n, dtype="i4"))
            f[name].make_scale(name)
        d = f.create_dataset("d", data=np.zeros((3, 2), dtype="i4"))
        d.dims[0].attach_scale(f["y"])
        d.dims[1].attach_scale(f["x1"])
        d.dims[1].attach_scale(f["x2"])
        e = f.create_dataset("e", data=np.ones((2,), dtype="i4"))
        e.dims[0].attach_scale(f["x2"])
        e.dims[0].attach_scale(f["x1"])


def empty(out):
    """Zero-length axes, as NWB files without data have: netcdf-c makes each new
    dimension of length 0 unlimited (nc4_dim_list_add reads 0 as NC_UNLIMITED), and
    matches later axes to it by their own maximum (unlimited or not), so an empty
    axis of fixed maximum after it gets a dimension of its own."""
    with h5py.File(out, "w") as f:
        f.create_dataset("a", shape=(0,), dtype="i4")
        f.create_dataset("b", shape=(0,), dtype="i4", maxshape=(None,))
        f.create_dataset("c", shape=(0, 2), dtype="i4", maxshape=(4, 2), chunks=(1, 1))
        f.create_dataset("d", shape=(0, 0, 0), dtype="u1")
        g = f.create_group("fixed_first")
        g.create_dataset("a", shape=(0,), dtype="i4", maxshape=(4,), chunks=(1,))
        g.create_dataset("b", shape=(0,), dtype="i4")
        s = f.create_group("scale")
        s.create_dataset("z", shape=(0,), dtype="f4")
        s["z"].make_scale("z")
        s.create_dataset("w", shape=(0,), dtype="f4")
        s["w"].dims[0].attach_scale(s["z"])


def soft_link(out):
    """One netCDF-4 marker (CLASS) on a dataset that a soft link names again, and a
    soft link to a group: netcdf-c's NC4_walk counts markers only on datasets reached
    by hard links (H5Gget_objtype_by_idx calls the others links), so _IsNetcdf4 is 0;
    two hard links to the dataset would count it twice."""
    with h5py.File(out, "w") as f:
        f.create_dataset("z", data=np.arange(2, dtype="i4")).attrs["CLASS"] = b"x"
        f["z2"] = h5py.SoftLink("/z")
        g = f.create_group("g")
        g.create_dataset("y", data=np.arange(2, dtype="i4"))
        f["g2"] = h5py.SoftLink("/g")


def markers(out):
    """Markers of netcdf-c 4.9.0 other than the dimension scales' attributes: a
    dataset named phony_dim, and _ARRAY_DIMENSIONS (xarray's) on another; netcdf-c
    hides every name it reserves (the root's too), and reads _NCProperties only as
    a string."""
    with h5py.File(out, "w") as f:
        f.create_dataset("phony_dim", data=np.arange(2, dtype="i4"))
        d = f.create_dataset("v", data=np.arange(2, dtype="i4"))
        d.attrs["_ARRAY_DIMENSIONS"] = [b"x"]
        for name in ["_Codecs", "_Format", "_NCZARR_ATTR", "_SuperblockVersion", "_Storage"]:
            d.attrs[name] = np.int32(3)
        f.attrs["_NCProperties"] = np.int32(3)
        f.attrs["_Format"] = np.int32(3)


def names(out):
    """Names other HDF5 writers give and netcdf-c cannot make: a leading `.`, `-`,
    `+` or `@` (NWB's `.specloc`), `%` inside, an attribute called `_`, besides
    those ncdump escapes. ncdump prints the first kinds bare; ncgen reads none."""
    with h5py.File(out, "w") as f:
        for n in [".specloc", "-x", "+x", "@x", "p%q", "_", "a b", "1x", "x.y"]:
            f.attrs[n] = np.int32(1)
        d = f.create_dataset(".v", data=np.arange(2, dtype="i4"))
        d.attrs[".a"] = np.int32(2)
        d.attrs["-b"] = b"text"
        f.create_dataset("-w", data=np.arange(3, dtype="f8"))
        g = f.create_group(".g")
        g.create_dataset("+v%", data=np.arange(2, dtype="i2"))
        g.attrs["@at"] = np.int32(3)


CASES = {"names": names, "soft_link": soft_link, "markers": markers, "empty": empty, "two_scales": two_scales, "shuffle_param": shuffle_param, "continued": continued}

if __name__ == "__main__":
    CASES[sys.argv[1]](sys.argv[2])
