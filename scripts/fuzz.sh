#!/usr/bin/env bash
# Fuzz every target of fuzz/ (cargo-fuzz, libFuzzer) for SECONDS each (default 60) and
# fail on any crash, abort, leak of the memory limit or timeout. Seeds come from the
# project's fixtures (fuzz/seeds.py); the corpus grows in fuzz/corpus/<target>/ and what
# fails is kept in fuzz/artifacts/<target>/ (rerun one with
# `cd fuzz && cargo +nightly fuzz run TARGET artifacts/TARGET/FILE`).
# Memory limit 2 GiB and 10 s per input, as the hostile-input tests.
# Needs: a nightly toolchain (rustup toolchain install nightly), python3; installs
# cargo-fuzz when missing.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
secs=${1:-60}
shift || true
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here/fuzz"
if ! cargo fuzz --version >/dev/null 2>&1; then
    cargo install cargo-fuzz --locked
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi
python3 seeds.py corpus
cargo +nightly fuzz build -O 2>&1 | grep -v '^\s*Compiling' || true
bin=target/$(rustc +nightly -vV | sed -n 's/^host: //p')/release
failed=()
report=()
for t in "${targets[@]}"; do
    log=$(mktemp)
    echo "== $t: ${secs}s"
    # The built binary, not `cargo fuzz run`, which would rebuild from sources being
    # edited while a long run goes on.
    mkdir -p "artifacts/$t"
    if "$bin/$t" "corpus/$t" -artifact_prefix="artifacts/$t/" \
        -max_total_time="$secs" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 >"$log" 2>&1; then
        status=ok
    else
        status=FAILED
        failed+=("$t")
        grep -E 'ERROR|panicked|Test unit written|SUMMARY' "$log" | head -20 || true
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
    report+=("$(printf '%-15s %-7s %12s executions' "$t" "$status" "${runs:-?}")")
    rm -f "$log"
done
echo
printf '%s\n' "${report[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: failures in: ${failed[*]} (inputs in fuzz/artifacts/)" >&2
    exit 1
fi
