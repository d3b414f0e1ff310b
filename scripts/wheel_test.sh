#!/usr/bin/env bash
# The Python wheel, end to end (docs/install.md): build the sdist and, from it, the
# wheel with maturin (pyproject.toml, `bindings = "bin"`), linked by zig against an old
# glibc so that it is manylinux; check both archives' contents; have PyPI's
# `auditwheel show` name a manylinux tag; install the wheel into a fresh venv; run
# every program from there; check that `nczdump examples/ocean.zarr` (and a few
# variants) print exactly what the cargo build prints; report the sizes.
#
# Needs python3 with venv and pip (packages from PyPI only: maturin, ziglang,
# auditwheel), a Rust toolchain and a C compiler. Reads no stdin; every failure exits
# non-zero with the reason on stderr.
#
# Environment:
#   PYTHON                   interpreter for the venvs (default python3)
#   NCZARR_WHEEL_COMPAT      manylinux tag to build for (default manylinux_2_28)
#   NCZARR_WHEEL_ZIG=0       link with the host toolchain instead of zig (then run this
#                            inside a manylinux container of NCZARR_WHEEL_COMPAT)
#   NCZARR_WHEEL_PIP         what to pip-install for the build
#                            (default: "maturin[zig]>=1.9.3,<2" auditwheel)
#   NCZARR_WHEEL_MAX_MIB     largest acceptable wheel, MiB (default 24: one program holds
#                            every tool (crates/wheel); seven separate programs made
#                            the quick build's wheel 79.5 MiB, about 11 MiB each)
#   NCZARR_WHEEL_OUT         keep the sdist and wheel in this directory
#   NCZARR_WHEEL_QUICK=1     no LTO, 16 codegen units: a faster build of the same
#                            programs (for a CI time budget; the size is then not the
#                            release size)
#   CARGO_TARGET_DIR         as .ci/run (default ~/.cache/nczarr-tools/target)
set -euo pipefail
exec </dev/null
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/nczarr-tools/target}"
# build.rs packs relative relocations (DT_RELR), which needs glibc 2.36 at run time
# (symbol version GLIBC_ABI_DT_RELR, allowed by manylinux_2_36 and later only) and is
# not a zig linker option: the wheel must be linked without it.
export NCZARR_NO_PACK_RELR=1
# maturin strips the programs (pyproject.toml: strip = true), so the debug info that
# [profile.release] asks for would be built only to be thrown away.
export CARGO_PROFILE_RELEASE_DEBUG=0
if [ "${NCZARR_WHEEL_QUICK:-0}" = 1 ]; then
    export CARGO_PROFILE_RELEASE_LTO=off CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
fi

# maturin gives every file of the sdist the same fixed time (2006) unless told the
# time: the wheel built from it in a target directory that has built an older tree would
# find every source older than its last build and keep stale programs (cargo compares
# times), and a changed build script would not run again. Now, so that it builds afresh.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(date +%s)}"
python="${PYTHON:-python3}"
compat="${NCZARR_WHEEL_COMPAT:-manylinux_2_28}"
use_zig="${NCZARR_WHEEL_ZIG:-1}"
max_mib="${NCZARR_WHEEL_MAX_MIB:-24}"
read -r -a pip_specs <<<"${NCZARR_WHEEL_PIP:-maturin[zig]>=1.9.3,<2 auditwheel}"
tools=(nczdump nczgen nczcopy nczcmp zmapdump nczatted nczrename nczview)
# The one program the tools' launchers run (crates/wheel).
program=nczarr-tools
arch=$(uname -m)

section() { printf '\n==== wheel: %s (%s)\n' "$1" "$(date +%T)"; }
fail() { printf 'wheel_test: FAIL: %s\n' "$*" >&2; exit 1; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f MiB", b / 1048576 }'; }

work=$(mktemp -d "${TMPDIR:-/tmp}/nczarr-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

version=$(cargo metadata --no-deps --format-version 1 --locked |
    "$python" -c 'import json, sys
print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "nczarr-tools"))')
[ -n "$version" ] || fail "no version for nczarr-tools in cargo metadata"

section "build tools from PyPI: ${pip_specs[*]}"
"$python" -m venv "$work/build"
"$work/build/bin/pip" install -q --disable-pip-version-check "${pip_specs[@]}"
# maturin runs zig as `python -m ziglang` from the interpreter it finds first.
export PATH="$work/build/bin:$PATH"
maturin --version

section "sdist, and the wheel built from it ($compat, zig=$use_zig)"
args=(build --release --locked --sdist --out "$work/dist")
if [ "$use_zig" = 1 ]; then args+=(--zig); fi
args+=(--compatibility "$compat")
maturin "${args[@]}"
shopt -s nullglob
wheels=("$work"/dist/*.whl)
sdists=("$work"/dist/*.tar.gz)
shopt -u nullglob
[ ${#wheels[@]} = 1 ] || fail "expected one wheel in $work/dist, found ${#wheels[@]}"
[ ${#sdists[@]} = 1 ] || fail "expected one sdist in $work/dist, found ${#sdists[@]}"
wheel=${wheels[0]}
sdist=${sdists[0]}
echo "wheel: $(basename "$wheel")"
echo "sdist: $(basename "$sdist")"
case "$(basename "$wheel")" in
    *"-py3-none-${compat}_${arch}"*.whl | *"-py3-none-"*"${compat}_${arch}"*.whl) ;;
    *) fail "wheel $(basename "$wheel") is not tagged py3-none-${compat}_${arch}" ;;
esac

section "sdist contents: what the build reads, and nothing of the tests"
tar -tzf "$sdist" | sed 's|^[^/]*/||' | sort >"$work/sdist.list"
for f in Cargo.toml Cargo.lock build.rs pyproject.toml src/lib.rs src/bin/nczdump.rs \
    src/bin/nczcopy/main.rs crates/nczarr/Cargo.toml crates/nczarr/src/lib.rs \
    crates/nczarr/assets/DejaVuSans-subset.ttf crates/wheel/Cargo.toml crates/wheel/src/main.rs \
    crates/wheel/data/scripts/nczdump \
    vendor/hdf5-reader/Cargo.toml vendor/hdf5-reader/src/lib.rs; do
    grep -qxF "$f" "$work/sdist.list" || fail "sdist lacks $f"
done
if grep -E '^(tests|benches|fuzz|\.ci|scripts|examples|docs|cdl-grammar|crates/nczarr/tests|target)/' "$work/sdist.list" | head -5 | grep .; then
    fail "sdist holds test data, benchmarks or build output (above)"
fi
echo "sdist: $(wc -l <"$work/sdist.list") files"

section "wheel contents: one stripped program, a launcher per tool, nothing else executable"
"$python" - "$wheel" "$program" "${tools[@]}" <<'EOF'
import sys, zipfile
wheel, program, tools = sys.argv[1], sys.argv[2], sys.argv[3:]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if not n.endswith("/")]
    scripts = sorted(n.split("/", 2)[2] for n in names
                     if n.split("/")[0].endswith(".data") and n.split("/")[1:2] == ["scripts"])
    if sorted(tools + [program]) != scripts:
        sys.exit(f"wheel_test: FAIL: .data/scripts holds {scripts}, expected {sorted(tools + [program])}")
    for n in names:
        data = z.read(n)
        leaf = n.split("/", 2)[-1]
        mode = z.getinfo(n).external_attr >> 16
        if leaf in tools:
            want = f'/{program}" {leaf} "$@"'.encode()
            if not data.startswith(b"#!/bin/sh\n") or want not in data or not mode & 0o111:
                sys.exit(f"wheel_test: FAIL: {n} is not an executable launcher of {program} {leaf}")
            continue
        if data[:4] != b"\x7fELF":
            continue
        if leaf != program:
            sys.exit(f"wheel_test: FAIL: unexpected ELF file {n}")
        # Section names, from the ELF64 little-endian header and section table.
        shoff = int.from_bytes(data[0x28:0x30], "little")
        shentsize = int.from_bytes(data[0x3A:0x3C], "little")
        shnum = int.from_bytes(data[0x3C:0x3E], "little")
        shstrndx = int.from_bytes(data[0x3E:0x40], "little")
        def sh(i):
            o = shoff + i * shentsize
            return (int.from_bytes(data[o:o + 4], "little"),
                    int.from_bytes(data[o + 0x18:o + 0x20], "little"))
        stroff = sh(shstrndx)[1]
        secs = []
        for i in range(shnum):
            name_off = sh(i)[0]
            end = data.index(b"\0", stroff + name_off)
            secs.append(data[stroff + name_off:end].decode())
        # .debug_gdb_scripts is loaded data (gdb's pretty-printer list), not debug info.
        bad = [s for s in secs
               if (s.startswith(".debug") and s != ".debug_gdb_scripts") or s == ".symtab"]
        if bad:
            sys.exit(f"wheel_test: FAIL: {n} is not stripped: {bad}")
        print(f"{n}: {len(data)} bytes, stripped")
EOF

section "auditwheel show"
audit=$(auditwheel show "$wheel") || { printf '%s\n' "$audit" >&2; fail "auditwheel show failed"; }
printf '%s\n' "$audit"
flat=$(printf '%s' "$audit" | tr '\n' ' ')
tag=$(printf '%s' "$flat" | grep -o 'following platform tag: "[^"]*"' | sed 's/.*"\(.*\)"/\1/' || true)
[ -n "$tag" ] || fail "auditwheel named no platform tag"
case "$tag" in
    manylinux_*_"$arch") ;;
    *) fail "auditwheel: the wheel is $tag, not manylinux" ;;
esac
# The policy auditwheel names is the oldest glibc the programs accept: it must be no
# newer than the one the wheel claims.
want=${compat#manylinux_}
got=${tag#manylinux_}
got=${got%_"$arch"}
if [ "$(printf '%s\n%s\n' "${got//_/.}" "${want//_/.}" | sort -V | tail -n 1)" != "${want//_/.}" ]; then
    fail "auditwheel: the programs need $tag, newer than the wheel's ${compat}_${arch}"
fi
# Libraries outside the policy's set (glibc's libc, libm, libpthread, libdl, ...) would
# be listed as "external shared libraries ... required"; the set's own are named only
# with the symbol versions they are asked for.
case "$flat" in
    *"external shared libraries are required"* | *"requires external"*)
        fail "auditwheel: the programs need shared libraries beyond the manylinux set (above)" ;;
esac

section "install into a fresh venv (no network)"
"$python" -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --no-index --no-deps "$wheel"
for t in "${tools[@]}"; do
    [ -x "$work/venv/bin/$t" ] || fail "$t is not in the venv's bin/"
    found=$(PATH="$work/venv/bin:$PATH" bash -c 'command -v "$1"' _ "$t")
    [ "$found" = "$work/venv/bin/$t" ] || fail "$t on PATH is $found, not the venv's"
    first=$("$work/venv/bin/$t" --version | head -n 1)
    [ "$first" = "$t $version" ] || fail "$t --version says '$first', expected '$t $version'"
    echo "$first"
done

section "the wheel's programs against the cargo build, on the bundled example"
cargo build --locked --bin nczdump --bin nczview
ref="$CARGO_TARGET_DIR/debug/nczdump"
whl="$work/venv/bin"
cases=("" "-h -s" "-t -v time" "--json")
for opts in "${cases[@]}"; do
    # shellcheck disable=SC2086 # the options are words
    "$ref" $opts examples/ocean.zarr >"$work/ref.out"
    # shellcheck disable=SC2086
    "$whl/nczdump" $opts examples/ocean.zarr >"$work/whl.out"
    cmp -s "$work/ref.out" "$work/whl.out" ||
        { diff "$work/ref.out" "$work/whl.out" | head -20 >&2; fail "nczdump $opts examples/ocean.zarr differs"; }
    echo "nczdump ${opts:+$opts }examples/ocean.zarr: same as the cargo build ($(wc -l <"$work/ref.out") lines)"
done
"$whl/zmapdump" list examples/ocean.zarr >/dev/null
"$whl/nczdump" examples/ocean.zarr >"$work/ocean.cdl"
"$whl/nczgen" -o "$work/ocean-copy.zarr" "$work/ocean.cdl"
"$whl/nczdump" -n ocean "$work/ocean-copy.zarr" | cmp -s - "$work/ocean.cdl" ||
    fail "nczgen: the CDL round trip of examples/ocean.zarr differs"
"$whl/nczcopy" -c time/3,lat/3,lon/4 --codec zstd -s examples/ocean.zarr "$work/ocean-ts.zarr"
"$whl/nczcmp" -s examples/ocean.zarr "$work/ocean-ts.zarr" >/dev/null ||
    fail "nczcmp: the rechunked copy differs from examples/ocean.zarr"
for opts in "--raster" ""; do
    # shellcheck disable=SC2086
    "$CARGO_TARGET_DIR/debug/nczview" -v sst $opts -o "$work/ref.png" examples/ocean.zarr
    # shellcheck disable=SC2086
    "$whl/nczview" -v sst $opts -o "$work/whl.png" examples/ocean.zarr
    cmp -s "$work/ref.png" "$work/whl.png" || fail "nczview -v sst ${opts:+$opts }differs from the cargo build's"
    rm -f "$work/ref.png" "$work/whl.png"
done
echo "zmapdump list, nczgen round trip, nczcopy rechunk, nczcmp, nczview: ok"

section "sizes"
wheel_bytes=$(stat -c %s "$wheel")
installed=$(stat -c %s "$whl/$program")
echo "wheel:  $(basename "$wheel")  $wheel_bytes bytes ($(mib "$wheel_bytes"))"
echo "sdist:  $(basename "$sdist")  $(stat -c %s "$sdist") bytes ($(mib "$(stat -c %s "$sdist")"))"
echo "installed program ($program, every tool): $installed bytes ($(mib "$installed"))"
[ "$wheel_bytes" -le $((max_mib * 1048576)) ] ||
    fail "the wheel is $(mib "$wheel_bytes"), over NCZARR_WHEEL_MAX_MIB=$max_mib"

if [ -n "${NCZARR_WHEEL_OUT:-}" ]; then
    mkdir -p "$NCZARR_WHEEL_OUT"
    cp "$wheel" "$sdist" "$NCZARR_WHEEL_OUT/"
    echo "kept in $NCZARR_WHEEL_OUT"
fi
section "done"
