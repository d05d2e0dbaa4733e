#!/usr/bin/env python3
"""A loopback HTTP server for `gpuplan prices update` tests: serves a folder laid out like
SkyPilot's hosted catalog, misbehaving on purpose according to the first path segment.

  /ok/<path>          the file, with ETag and Last-Modified; 304 when If-None-Match matches
  /e500/<path>        HTTP 500
  /truncated/<path>   announces the full length, sends half, closes
  /slow/<path>        waits SLOW_S seconds before answering
  /big/<path>         the file padded past its length with CSV rows (Content-Length set)
  /bigstream/<path>   the same, close-delimited with no length (the cap must count bytes)
  /malformed/<path>   a body that is not a price sheet

A request whose target is an absolute URL (a proxy request: GET http://host/ok/...) is served
the same way and counted, so a test can see that http_proxy was honoured.

Binds 127.0.0.1 on an ephemeral port, writes the port to --port-file, and stops by itself after
--lifetime seconds or when the test kills it.
"""
import argparse
import hashlib
import http.server
import os
import sys
import threading
import time
import urllib.parse

SLOW_S = 5


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    root = "."
    log_file = None

    def log_message(self, fmt, *args):  # one line per request, for the test to read
        if self.log_file:
            with open(self.log_file, "a") as f:
                f.write("%s %s\n" % (self.command, self.path))

    def do_GET(self):
        target = self.path
        if target.startswith("http://"):
            target = urllib.parse.urlsplit(target).path
            if self.log_file:
                with open(self.log_file, "a") as f:
                    f.write("proxied %s\n" % self.path)
        parts = target.lstrip("/").split("/", 1)
        if len(parts) != 2:
            return self.plain(404, b"not found\n")
        mode, rel = parts
        path = os.path.realpath(os.path.join(self.root, rel))
        if not path.startswith(os.path.realpath(self.root) + os.sep) or not os.path.isfile(path):
            return self.plain(404, b"not found\n")
        with open(path, "rb") as f:
            body = f.read()
        handler = getattr(self, "mode_" + mode, None)
        if handler is None:
            return self.plain(404, b"unknown mode\n")
        handler(body)

    def plain(self, code, body, headers=()):
        self.send_response(code)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def mode_ok(self, body):
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:16]
        validators = [("ETag", etag), ("Last-Modified", "Tue, 01 Dec 2026 10:00:00 GMT")]
        if self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            for k, v in validators:
                self.send_header(k, v)
            self.end_headers()
            return
        self.plain(200, body, validators + [("Content-Type", "text/csv")])

    def mode_e500(self, body):
        self.plain(500, b"internal error\n")

    def mode_truncated(self, body):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body[: len(body) // 2])
        self.wfile.flush()
        self.close_connection = True

    def mode_slow(self, body):
        time.sleep(SLOW_S)
        try:
            self.plain(200, body)
        except OSError:
            pass  # the client gave up, as it should

    def padded(self, body):
        row = body.splitlines()[-1] + b"\n"
        return body + row * (200_000 // len(row) + 1)

    def mode_big(self, body):
        self.plain(200, self.padded(body))

    def mode_bigstream(self, body):
        self.send_response(200)
        self.send_header("Connection", "close")
        self.end_headers()
        try:
            self.wfile.write(self.padded(body))
        except OSError:
            pass  # the client stopped reading at its cap
        self.close_connection = True

    def mode_malformed(self, body):
        self.plain(200, b'<html><body>"not a catalog</body></html>\n')


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass  # a client that gave up (timeout, size cap) is what the tests want


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", default=None)
    ap.add_argument("--lifetime", type=float, default=120)
    a = ap.parse_args()
    Handler.root = a.root
    Handler.log_file = a.log
    server = Server(("127.0.0.1", 0), Handler)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, a.port_file)
    threading.Timer(a.lifetime, server.shutdown).start()
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
