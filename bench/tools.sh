#!/usr/bin/env bash
# Tool calls through the whole agent path, against a release build on loopback: an http_bot
# turn whose (fake, instant) model asks for MCP tool calls on the official-SDK fixture server
# over streamable HTTP.
#   1. the overhead this side adds to one call: from the model's answer asking for it to the
#      model receiving its result, minus the MCP server's own time in the tool (p50/p99);
#   2. N slow calls in one answer (side by side) against N turns of one call each.
#   bench/tools.sh [calls] [parallel-N] [slow-seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS="${1:-300}"
N="${2:-5}"
SLOW="${3:-0.5}"
# shellcheck source=lib.sh
source bench/lib.sh
# shellcheck source=../scripts/lib/mcp_venv.sh
source scripts/lib/mcp_venv.sh
ensure_mcp_venv >/dev/null
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DIR"' EXIT
export FAKE_TOOL_LOG="$DIR/model.log" MCP_CALL_LOG="$DIR/mcp.log"
MCP_PORT="$(free_port)"
"$MCP_PYTHON" tests/fixtures/mcp_server.py streamable-http "$MCP_PORT" >/dev/null 2>&1 & PIDS+=($!)
start_langbot
setup_owner
MODEL=$(api POST /provider/models/llm "{\"name\":\"m\",\"provider_uuid\":\"$PROVIDER\",\"abilities\":[\"func_call\"]}" | json '["data"]["uuid"]')
api POST /pipelines "{\"name\":\"tools\",\"is_default\":true,\"config\":{\"ai\":{\"runner_config\":{\"local-agent\":{\"model\":{\"primary\":\"$MODEL\"},\"max-tool-rounds\":2}}},\"safety\":{\"rate-limit\":{\"limitation\":100000}}}}" >/dev/null
BOT=$(create_bot tools)
until curl -fs "http://127.0.0.1:$MCP_PORT/mcp" -o /dev/null -w '' 2>/dev/null || [ $? -eq 22 ]; do sleep 0.1; done
api POST /mcp/servers "{\"name\":\"fixture\",\"mode\":\"http\",\"enable\":true,\"extra_args\":{\"url\":\"http://127.0.0.1:$MCP_PORT/mcp\"}}" >/dev/null
until api GET /mcp/servers/fixture | grep -q '"status":"connected"'; do sleep 0.1; done

turn() { # text → wall seconds of one synchronous turn
  local t0 t1; t0=$(date +%s.%N)
  curl -fs -XPOST "$BASE/bots/$BOT/sync" -H 'content-type: application/json' \
    -d "{\"session_id\":\"s-$RANDOM-$RANDOM\",\"message\":[{\"type\":\"Plain\",\"text\":\"$1\"}]}" \
    | grep -q done || { echo "turn '$1' did not finish" >&2; exit 1; }
  t1=$(date +%s.%N); python3 -c "print($t1 - $t0)"
}

echo "LangBot tool-call bench: release build, $(nproc) cores, MCP fixture over streamable HTTP (mcp==1.30.0)"
for _ in $(seq 10); do turn "tools echo 1" >/dev/null; done   # warm-up
: > "$FAKE_TOOL_LOG"; : > "$MCP_CALL_LOG"
for _ in $(seq "$CALLS"); do turn "tools echo 1" >/dev/null; done
curl -fs "$BASE/api/v1/monitoring/export?type=tool_calls&format=ndjson" -H "X-API-Key: $KEY" > "$DIR/records.ndjson"
# The baseline: the same server called by a bare client (raw JSON-RPC, no SDK), same calls.
direct=$(python3 bench/mcp_direct.py "http://127.0.0.1:$MCP_PORT/mcp" "$CALLS")
one=$(for _ in $(seq 3); do turn "tools sleep 1 $SLOW"; done | sort -n | sed -n 2p)
many=$(for _ in $(seq 3); do turn "tools sleep $N $SLOW"; done | sort -n | sed -n 2p)
python3 - "$FAKE_TOOL_LOG" "$MCP_CALL_LOG" "$one" "$many" "$N" "$DIR/records.ndjson" "$direct" <<'PY'
import json, sys
model = {}
for line in open(sys.argv[1]):
    e = json.loads(line); model.setdefault(e["id"], {}).update(e)
server = {}
for line in open(sys.argv[2]):
    e = json.loads(line)
    if e["tool"] == "echo":
        server[e["arguments"]["text"]] = e["end"] - e["start"]
recorded = {}
for line in open(sys.argv[6]):
    r = json.loads(line)
    if r.get("tool_name") == "echo":
        recorded[json.loads(r["arguments"])["text"]] = r["duration"] / 1000
ids = [k for k, m in model.items() if k in server and "back" in m and "sent" in m]
pct = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p / 100 * len(xs)))]
srv = [server[k] * 1000 for k in ids]
path = [(model[k]["back"] - model[k]["sent"] - server[k]) * 1000 for k in ids]
call = [(recorded[k] - server[k]) * 1000 for k in ids if k in recorded]
direct = json.loads(sys.argv[7])
rec = [recorded[k] * 1000 for k in ids if k in recorded]
print(f"{len(ids)} echo calls, one per turn; the tool function itself: p50 {pct(srv, 50):.2f} ms, p99 {pct(srv, 99):.2f} ms")
print(f"  a bare client calling the server directly (its latency): p50 {direct['p50']:.2f} ms, p99 {direct['p99']:.2f} ms")
print(f"  through LangBot's MCP client (recorded, 1 ms resolution): p50 {pct(rec, 50):.2f} ms, p99 {pct(rec, 99):.2f} ms"
      f" → overhead p50 {pct(rec, 50) - direct['p50']:.2f} ms, p99 {pct(rec, 99) - direct['p99']:.2f} ms")
print(f"  the whole round (model asked → model got the result, including recording it) minus the server's time:"
      f" p50 {pct(path, 50):.2f} ms, p99 {pct(path, 99):.2f} ms")
one, many, n = float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
print(f"one sleep call per turn: {one:.3f} s; {n} in one answer: {many:.3f} s "
      f"(n × one = {n * one:.3f} s; ratio {many / (n * one):.2f})")
PY
