"""A copy in parts on a Dask distributed cluster: nczcopy's own work split N ways.

    python examples/dask_parts.py N OUTPUT INPUT...   [--scheduler ADDRESS] [-- NCZCOPY-OPTIONS...]

One `nczcopy --metadata-only` writes the metadata, then each of the N parts
(`nczcopy --part K/N`, a disjoint set of output chunks) runs as a task on a worker, and
`nczcopy --finish` makes the dataset open once every part is done. Several inputs are
joined along the record dimension, as `nczcopy INPUT... OUTPUT` joins them. Without
`--scheduler`, a LocalCluster of separate worker processes is started. Options after `--`
(such as `-c time/30`) are given to every run; they must be the same in every run.

Workers need `nczcopy` on their PATH (or NCZCOPY naming it) and the inputs and the output
at the same names: a shared file system, or S3/GCS/Azure URLs.
"""

import os
import subprocess
import sys


def nczcopy(args):
    """Run nczcopy with `args`; raise with its message when it fails."""
    exe = os.environ.get("NCZCOPY", "nczcopy")
    done = subprocess.run([exe, *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"nczcopy {' '.join(args)}: {done.stderr.strip()}")
    return done.stderr


def main(argv):
    extra = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1:]
    scheduler = None
    if "--scheduler" in argv:
        at = argv.index("--scheduler")
        scheduler = argv[at + 1]
        argv = argv[:at] + argv[at + 2:]
    if len(argv) < 3:
        sys.exit(__doc__)
    parts, output, inputs = int(argv[0]), argv[1], argv[2:]

    from distributed import Client, LocalCluster

    cluster = None if scheduler else LocalCluster(n_workers=min(parts, 4), threads_per_worker=1, processes=True)
    with Client(scheduler or cluster) as client:
        nczcopy([*extra, "--metadata-only", *inputs, output])
        futures = [
            client.submit(nczcopy, [*extra, "--part", f"{k}/{parts}", *inputs, output], pure=False)
            for k in range(1, parts + 1)
        ]
        client.gather(futures)
        nczcopy(["--finish", output])
    if cluster is not None:
        cluster.close()


if __name__ == "__main__":
    main(sys.argv[1:])
