#!/usr/bin/env python3
"""Loopback stand-ins for the benchmark: an OpenAI-compatible model that answers instantly
(SSE, one chunk) and a callback receiver that counts deliveries. Standard library only.

    fake_upstream.py PORT      # serves /v1/chat/completions, /cb and /count

Fault mode (tests/cluster/): words in the user's last message change the answer. "slow=S"
waits S seconds before answering, "fail" answers HTTP 500, "hist" answers "pong history=N"
(N: the user messages the model was sent, this one included). With $FAKE_CALLBACK_LOG set,
every callback body is appended to it, one JSON line each.

Tool mode (bench/tools.sh, bench/plugins.sh): when tools are offered and the user says
"tools <name> <count> [seconds]", the model asks for <count> calls of <name> at once (each
call's id in its arguments: `text` for echo, `state` for the weather plugin's
get_weather_alerts, else `label` with `seconds`); once the results come back it answers "done". With $FAKE_TOOL_LOG set, it appends when it sent each
call ({"id", "sent"}) and when the result came back ({"id", "back"}), in time.time() seconds.
"""
import json
import os
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNT = 0
LOCK = threading.Lock()
# The arguments of a tool-mode call of each tool, carrying the call's id.
ARGUMENTS = {
    "echo": lambda call_id: {"text": call_id},
    "get_weather_alerts": lambda call_id: {"state": call_id},
}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _send(self, status, body, ctype="application/json"):
        data = body.encode()
        try:
            self.send_response(status)
            self.send_header("content-type", ctype)
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the caller gave up (a timeout, a killed replica)

    def do_GET(self):
        with LOCK:
            self._send(200, json.dumps({"count": COUNT}))

    def _log(self, entries):
        path = os.environ.get("FAKE_TOOL_LOG")
        if path and entries:
            with LOCK, open(path, "a", encoding="utf-8") as log:
                for e in entries:
                    log.write(json.dumps(e) + "\n")

    def _tool_turn(self, body):
        """The answer of tool mode, or None when the request is not one."""
        messages = body.get("messages") or []
        if not messages:
            return None
        last = messages[-1]
        if last.get("role") == "tool":
            now = time.time()
            self._log([{"id": m.get("tool_call_id"), "back": now} for m in messages
                       if m.get("role") == "tool"][-body_tool_count(messages):])
            return [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": "done"}, "finish_reason": "stop"}]}], []
        words = str(last.get("content") or "").split()
        if not body.get("tools") or len(words) < 3 or words[0] != "tools":
            return None
        name, count = words[1], int(words[2])
        seconds = float(words[3]) if len(words) > 3 else 0.0
        calls = []
        for i in range(count):
            call_id = "call_" + uuid.uuid4().hex[:12]
            args = ARGUMENTS.get(name, lambda i: {"seconds": seconds, "label": i})(call_id)
            calls.append({"index": i, "id": call_id, "type": "function",
                          "function": {"name": name, "arguments": json.dumps(args)}})
        chunk = {"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": calls}, "finish_reason": "tool_calls"}]}
        return [chunk], [c["id"] for c in calls]

    def do_POST(self):
        global COUNT
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        if self.path.endswith("/chat/completions"):
            try:
                turn = self._tool_turn(json.loads(raw or b"{}"))
            except (ValueError, TypeError):
                turn = None
            if turn is not None:
                chunks, sent_ids = turn
                chunks.append({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}})
                body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
                self._send(200, body, "text/event-stream")
                now = time.time()
                self._log([{"id": i, "sent": now} for i in sent_ids])
                return
            try:
                messages = json.loads(raw or b"{}").get("messages") or []
            except (ValueError, AttributeError):
                messages = []
            words = str((messages[-1].get("content") if messages else "") or "").split()
            for w in words:
                if w.startswith("slow="):
                    time.sleep(float(w[5:]))
            if "fail" in words:
                self._send(500, json.dumps({"error": {"message": "the fake model failed", "type": "server_error"}}))
                return
            answer = "pong"
            if "hist" in words:
                answer += " history=%d" % sum(1 for m in messages if m.get("role") == "user")
            chunks = [
                {"choices": [{"index": 0, "delta": {"role": "assistant", "content": answer}, "finish_reason": "stop"}]},
                {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}},
            ]
            body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._send(200, body, "text/event-stream")
        else:
            with LOCK:
                COUNT += 1
                path = os.environ.get("FAKE_CALLBACK_LOG")
                if path:
                    with open(path, "a") as f:
                        f.write(raw.decode(errors="replace").replace("\n", " ") + "\n")
            self._send(200, "{}")


def body_tool_count(messages):
    """How many tool results close the conversation (the last round's)."""
    n = 0
    for m in reversed(messages):
        if m.get("role") != "tool":
            break
        n += 1
    return n


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
