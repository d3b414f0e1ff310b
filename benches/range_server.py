"""A web server for the remote-file benchmark: serves the files of ROOT with HTTP
Range support, holds every request DELAY seconds before answering (a distant server:
the S3 benchmark's 20 ms), and appends one line per request to LOG.
Usage: range_server.py ROOT DELAY LOG  (prints the port it listens on)"""
import http.server
import os
import sys
import threading
import time

root, delay, log = sys.argv[1], float(sys.argv[2]), sys.argv[3]
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def serve(self, body):
        time.sleep(delay)
        with lock, open(log, "a") as f:
            f.write(f"{self.command} {self.path} {self.headers.get('Range')}\n")
        path = os.path.join(root, self.path.lstrip("/").split("?")[0])
        if not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        size = os.path.getsize(path)
        asked = self.headers.get("Range")
        if asked and asked.startswith("bytes="):
            a, b = asked[6:].split("-")
            a, b = int(a), min(int(b) if b else size - 1, size - 1)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {a}-{b}/{size}")
        else:
            a, b = 0, size - 1
            self.send_response(200)
        self.send_header("Content-Length", str(b - a + 1))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Last-Modified", "Mon, 23 Nov 2026 10:00:00 GMT")
        self.end_headers()
        if body:
            with open(path, "rb") as f:
                f.seek(a)
                self.wfile.write(f.read(b - a + 1))

    def do_GET(self):
        self.serve(True)

    def do_HEAD(self):
        self.serve(False)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
