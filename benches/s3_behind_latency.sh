# Shared by the S3 benchmarks: source it from the project's root after `set -euo
# pipefail`. Starts the local S3 server (scripts/s3_server.sh) and, in front of it, the
# latency proxy (benches/latency_proxy.py: every request held 20 ms); sets `work` (a
# scratch directory) and `proxy` (the proxy's URL); removes both and stops the server
# when the script exits. Exits 1 without a server.
. scripts/s3_server.sh
s3_server_start
if [ -z "${NCZARR_TEST_S3_ENDPOINT:-}" ] || [ -z "${NCZARR_TEST_S3_PUBLIC_BUCKET:-}" ]; then
    echo "no S3 server: benchmark skipped" >&2
    exit 1
fi
work=$(mktemp -d)
proxy_pid=""
finish() {
    [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null || true
    rm -rf "$work"
    s3_server_stop
}
trap finish EXIT
python3 benches/latency_proxy.py "${NCZARR_TEST_S3_ENDPOINT#http://}" >"$work/proxy.port" 2>"$work/proxy.log" &
proxy_pid=$!
for _ in $(seq 1 50); do [ -s "$work/proxy.port" ] && break; sleep 0.1; done
proxy="http://127.0.0.1:$(cat "$work/proxy.port")"
