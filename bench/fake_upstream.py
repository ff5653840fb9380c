#!/usr/bin/env python3
"""Loopback stand-ins for the benchmark: an OpenAI-compatible model that answers instantly
(SSE, one chunk) and a callback receiver that counts deliveries. Standard library only.

    fake_upstream.py PORT      # serves /v1/chat/completions, /cb and /count
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNT = 0
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, body, ctype="application/json"):
        data = body.encode()
        self.send_response(status)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with LOCK:
            self._send(200, json.dumps({"count": COUNT}))

    def do_POST(self):
        global COUNT
        length = int(self.headers.get("content-length", 0))
        self.rfile.read(length)
        if self.path.endswith("/chat/completions"):
            chunks = [
                {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "pong"}, "finish_reason": "stop"}]},
                {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}},
            ]
            body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._send(200, body, "text/event-stream")
        else:
            with LOCK:
                COUNT += 1
            self._send(200, "{}")


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
