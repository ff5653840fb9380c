#!/usr/bin/env python3
"""The MCP server's latency as a bare client sees it: raw JSON-RPC over one keep-alive HTTP
connection (no SDK), initialize once, then `echo` N times; prints p50/p99 in ms as JSON.

    mcp_direct.py URL N
"""
import http.client
import json
import sys
import time
import urllib.parse

url = urllib.parse.urlparse(sys.argv[1])
n = int(sys.argv[2])
conn = http.client.HTTPConnection(url.hostname, url.port)
headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def post(message):
    conn.request("POST", url.path, json.dumps(message), headers)
    response = conn.getresponse()
    body = response.read().decode()
    return response, body


response, _ = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}})
headers["mcp-session-id"] = response.getheader("mcp-session-id")
post({"jsonrpc": "2.0", "method": "notifications/initialized"})
times = []
for i in range(n + 10):
    started = time.perf_counter()
    _, body = post({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                    "params": {"name": "echo", "arguments": {"text": f"direct-{i}"}}})
    elapsed = (time.perf_counter() - started) * 1000
    assert "direct-" in body, body
    if i >= 10:
        times.append(elapsed)
times.sort()
print(json.dumps({"p50": times[len(times) // 2], "p99": times[min(len(times) - 1, int(0.99 * len(times)))]}))
