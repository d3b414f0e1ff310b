#!/usr/bin/env python3
"""A fault-injecting HTTP proxy for S3 tests: put it in front of a local S3 server
(scripts/s3_server.sh) and point a dataset URL at it instead.

Each request meets a fault with probability RATE, one of (as --faults lists them):
  503       an S3 `SlowDown` answer, never forwarded
  500       an S3 `InternalError` answer, never forwarded
  reset     the connection is reset before any answer, never forwarded
  truncate  forwarded; the answer's body is cut in half after a full Content-Length
            (answers without a body get a 500 instead)
  slow      forwarded after a pause of SLOW seconds
Requests are forwarded byte for byte, Host header included, so SigV4 signatures made
for the proxy's address stay valid.

Usage: fault_proxy.py --upstream http://127.0.0.1:PORT [--rate 0.1] [--seed 1]
         [--faults 503,500,reset,truncate,slow] [--slow 1.0] [--stats FILE]
Prints the port it listens on (127.0.0.1, chosen free) as its first line. With --stats,
after every request FILE holds JSON counts: requests, forwarded, and each fault.
"""
import argparse
import http.client
import json
import os
import random
import socket
import struct
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

S3_ERROR = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code>'
            '<Message>{message}</Message></Error>')


class State:
    def __init__(self, args):
        self.rng = random.Random(args.seed)
        self.rate = args.rate
        self.faults = args.faults
        self.slow = args.slow
        self.stats_path = args.stats
        self.lock = threading.Lock()
        self.counts = {"requests": 0, "forwarded": 0, **{f: 0 for f in args.faults}}
        up = urllib.parse.urlsplit(args.upstream)
        self.upstream = (up.hostname, up.port or 80)

    def pick(self):
        with self.lock:
            self.counts["requests"] += 1
            if self.rng.random() < self.rate:
                return self.rng.choice(self.faults)
            return None

    def count(self, what):
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1
            if self.stats_path:
                with open(self.stats_path + ".tmp", "w") as f:
                    json.dump(self.counts, f)
                os.replace(self.stats_path + ".tmp", self.stats_path)


def handler_for(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def answer(self, status, code, message):
            body = S3_ERROR.format(code=code, message=message).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def reset(self):
            # SO_LINGER 0: close() sends a RST, as a dropped connection does.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
            self.close_connection = True

        def forward(self, fault):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            if fault == "503":
                state.count("503")
                return self.answer(503, "SlowDown", "Please reduce your request rate.")
            if fault == "500":
                state.count("500")
                return self.answer(500, "InternalError", "We encountered an internal error.")
            if fault == "reset":
                state.count("reset")
                return self.reset()
            if fault == "slow":
                state.count("slow")
                time.sleep(state.slow)
            conn = http.client.HTTPConnection(*state.upstream, timeout=60)
            headers = {k: v for k, v in self.headers.items()}
            conn.request(self.command, self.path, body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            conn.close()
            if fault == "truncate" and (len(data) < 2 or self.command == "HEAD"):
                state.count("truncate")
                return self.answer(500, "InternalError", "We encountered an internal error.")
            self.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command == "HEAD":
                state.count("forwarded")
                return
            if fault == "truncate":
                state.count("truncate")
                self.wfile.write(data[: len(data) // 2])
                self.wfile.flush()
                return self.reset()
            self.wfile.write(data)
            state.count("forwarded")

        def handle_any(self):
            try:
                self.forward(state.pick())
            except (ConnectionError, socket.timeout, http.client.HTTPException) as e:
                print(f"fault_proxy: {self.command} {self.path}: {e}", file=sys.stderr)
                self.close_connection = True

        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = handle_any

    return Handler


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--upstream", required=True)
    p.add_argument("--rate", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--faults", default="503,500,reset,truncate,slow")
    p.add_argument("--slow", type=float, default=1.0)
    p.add_argument("--stats")
    args = p.parse_args()
    args.faults = [f for f in args.faults.split(",") if f]
    state = State(args)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler_for(state))
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
