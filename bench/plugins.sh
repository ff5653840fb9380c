#!/usr/bin/env bash
# Plugin tool calls through the whole agent path, against a release build on loopback, with
# LangBot's real plugin runtime (langbot-plugin==0.7.18, `lbp rt`) running the test plugin
# tests/fixtures/plugins/weather (built with `lbp build`, installed through the API):
#   1. the runtime's start: from the install request to the runtime process answering
#      /healthz and to the plugin running (`status: initialized`); and, after a restart of
#      the server with the plugin installed, from the server's start to the plugin running;
#   2. the overhead LangBot's host adds to one tool call: N http_bot turns whose (fake,
#      instant) model asks for one `get_weather_alerts` call each (cheap, no host API calls);
#      the call's duration LangBot records, and the model's view (its answer asking for the
#      call → it receiving the result), each minus the runtime's own latency for the same call,
#      measured by bench/plugin_direct.py: a bare host made of langbot-plugin's own host-side
#      classes, on a runtime of its own (the runtime takes one control connection at a time),
#      over the same transport.
#   bench/plugins.sh [calls] [stdio|ws|both]
# stdio: LangBot spawns `lbp rt -s` (its default); ws: LangBot connects to an `lbp rt` this
# script starts with a control token (plugin.runtime_ws_url). BENCH_BIN skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
CALLS="${1:-300}"
TRANSPORT="${2:-both}"
if [ "$TRANSPORT" = both ]; then
  "$0" "$CALLS" stdio
  echo
  exec "$0" "$CALLS" ws
fi
case "$TRANSPORT" in stdio | ws) ;; *) echo "transport: stdio, ws or both" >&2; exit 2 ;; esac
# shellcheck source=../scripts/lib/plugin_venv.sh
source scripts/lib/plugin_venv.sh
ensure_plugin_venv >/dev/null
# shellcheck source=lib.sh
source bench/lib.sh
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$DIR"' EXIT
export FAKE_TOOL_LOG="$DIR/model.log"
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
within() { # seconds command… : polls the command every 5 ms until it succeeds
  local limit=$(( $(date +%s) + $1 )); shift
  until "$@"; do
    [ "$(date +%s)" -lt "$limit" ] || { echo "gave up waiting for: $*" >&2; tail -20 "$DIR"/*.log >&2 || true; exit 1; }
    sleep 0.005
  done
}
healthy() { curl -fs "http://127.0.0.1:$1/healthz" >/dev/null 2>&1; }
plugin_running() { # the API key works across a restart
  curl -fs "$BASE/api/v1/plugins/tester/weather" -H "X-API-Key: $1" 2>/dev/null | grep -q '"status": *"initialized"'
}

# The package as its authors would build it, and runtime directories holding it unpacked.
(cd tests/fixtures/plugins/weather && "$PLUGIN_PYTHON" -m langbot_plugin.cli.__init__ build -o "$DIR/pkg" >/dev/null)
PKG="$DIR/pkg/tester-weather-0.1.0.lbpkg"
for rt in direct external; do
  mkdir -p "$DIR/$rt/data/plugins"
  python3 -m zipfile -e "$PKG" "$DIR/$rt/data/plugins/tester__weather"
done

export LANGBOT_PLUGIN_ENABLE=true LANGBOT_PLUGIN_RUNTIME_PYTHON="$PLUGIN_PYTHON" LANGBOT_PLUGIN_INSTALL_DEPENDENCIES=false
ext_up_ms=""
if [ "$TRANSPORT" = ws ]; then
  RT_PORT="$(free_port)"
  RT_TOKEN="bench-control-token-$(python3 -c 'import uuid; print(uuid.uuid4().hex)')"
  spawned=$(date +%s%N)
  (cd "$DIR/external" && LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN="$RT_TOKEN" exec "$PLUGIN_PYTHON" -m langbot_plugin.cli.__init__ \
    rt --skip-deps-check --ws-control-port "$RT_PORT" --ws-debug-port "$(free_port)" 2>"$DIR/external.log") & PIDS+=($!)
  within 60 healthy "$RT_PORT"
  ext_up_ms=$(ms_since "$spawned")
  export LANGBOT_PLUGIN_RUNTIME_WS_URL="ws://127.0.0.1:$RT_PORT/control/ws" LANGBOT_PLUGIN_RUNTIME_CONTROL_TOKEN="$RT_TOKEN"
fi
start_langbot
setup_owner
MODEL=$(api POST /provider/models/llm "{\"name\":\"m\",\"provider_uuid\":\"$PROVIDER\",\"abilities\":[\"func_call\"]}" | json '["data"]["uuid"]')
api POST /pipelines "{\"name\":\"plugins\",\"is_default\":true,\"config\":{\"ai\":{\"runner_config\":{\"local-agent\":{\"model\":{\"primary\":\"$MODEL\"},\"max-tool-rounds\":2}}},\"safety\":{\"rate-limit\":{\"limitation\":100000}}}}" >/dev/null
BOT=$(create_bot plugins)

# 1. Install, then watch the runtime come up (stdio: LangBot's child; its debug server
# answers /healthz once the process runs) and the plugin start.
installed=$(date +%s%N)
curl -sS --fail-with-body -XPOST "$BASE/api/v1/plugins/install/local" -H "authorization: Bearer $TOKEN" -F "file=@$PKG" >/dev/null
up_ms=""
if [ "$TRANSPORT" = stdio ]; then
  within 60 pgrep -P "$PID" -f 'langbot_plugin.cli.__init__ rt' >/dev/null
  RT_PID=$(pgrep -P "$PID" -f 'langbot_plugin.cli.__init__ rt')
  DEBUG_PORT=$(tr '\0' '\n' <"/proc/$RT_PID/cmdline" | sed -n '/^--ws-debug-port$/{n;p}')
  within 60 healthy "$DEBUG_PORT"
  up_ms=$(ms_since "$installed")
fi
within 180 plugin_running "$KEY"
ready_ms=$(ms_since "$installed")
host_ms=$(api GET /system/status/plugin-system | json '["data"]["started_in_ms"]')

turn() { # text → wall seconds of one synchronous turn
  local t0 t1; t0=$(date +%s.%N)
  curl -fs -XPOST "$BASE/bots/$BOT/sync" -H 'content-type: application/json' \
    -d "{\"session_id\":\"s-$RANDOM-$RANDOM\",\"message\":[{\"type\":\"Plain\",\"text\":\"$1\"}]}" \
    | grep -q done || { echo "turn '$1' did not finish" >&2; exit 1; }
  t1=$(date +%s.%N); python3 -c "print($t1 - $t0)"
}

# 2. The calls through LangBot, then the same calls from the bare host.
for _ in $(seq 10); do turn "tools get_weather_alerts 1" >/dev/null; done   # warm-up
: > "$FAKE_TOOL_LOG"
for _ in $(seq "$CALLS"); do turn "tools get_weather_alerts 1" >/dev/null; done
curl -fs "$BASE/api/v1/monitoring/export?type=tool_calls&format=ndjson" -H "X-API-Key: $KEY" > "$DIR/records.ndjson"
direct=$("$PLUGIN_PYTHON" bench/plugin_direct.py "$TRANSPORT" "$DIR/direct" "$CALLS" 2>"$DIR/direct.log") \
  || { tail -20 "$DIR/direct.log" >&2; exit 1; }

# 3. A restart with the plugin installed (stdio: the server starts the runtime on first use).
restart=""
if [ "$TRANSPORT" = stdio ]; then
  kill "$PID"; wait "$PID" 2>/dev/null || true
  started=$(date +%s%N)
  LANGBOT_DATA_DIR="$DIR" LANGBOT_HTTP_ADDR="127.0.0.1:$PORT" LANGBOT_LOG=warn "$BIN" serve & PID=$!; PIDS+=($PID)
  within 60 curl -fs "$BASE/readyz" -o /dev/null
  http_ms=$(ms_since "$started")
  within 180 plugin_running "$KEY"
  restart="$http_ms $(ms_since "$started")"
fi

echo "LangBot plugin tool-call bench: release build, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)," \
  "transport $TRANSPORT, langbot-plugin $PLUGIN_RUNTIME_VERSION, tool get_weather_alerts of tests/fixtures/plugins/weather"
python3 - "$FAKE_TOOL_LOG" "$DIR/records.ndjson" "$direct" "$TRANSPORT" "$up_ms" "$ready_ms" "$host_ms" "$ext_up_ms" "$restart" <<'PY'
import json, sys
log, records, direct, transport, up, ready, host, ext_up, restart = sys.argv[1:]
direct = json.loads(direct)
model = {}
for line in open(log):
    e = json.loads(line); model.setdefault(e["id"], {}).update(e)
recorded = {}
for line in open(records):
    r = json.loads(line)
    if r.get("tool_name") == "get_weather_alerts" and r.get("status") == "success":
        recorded[json.loads(r["arguments"])["state"]] = r["duration"]
ids = [k for k, m in model.items() if k in recorded and "back" in m and "sent" in m]
pct = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p / 100 * len(xs)))]
rec = [float(recorded[k]) for k in ids]
path = [(model[k]["back"] - model[k]["sent"]) * 1000 for k in ids]
d50, d99 = direct["p50"], direct["p99"]
if transport == "stdio":
    print(f"runtime start after the install request: process up (answers /healthz) {up} ms,"
          f" plugin running (status initialized) {ready} ms (the host's own count, spawn to tools listed: {host} ms)")
    http, first = restart.split()
    print(f"  after a server restart with the plugin installed: HTTP ready {http} ms, plugin running {first} ms"
          " (the runtime starts on first use)")
else:
    print(f"runtime start: the external `lbp rt` answers /healthz {ext_up} ms after its spawn;"
          f" after the install request, plugin running {ready} ms (host's count, connect to tools listed: {host} ms)")
print(f"  the bare host's runtime of its own: spawn to __ping answered {direct['pong_ms']:.0f} ms,"
      f" to the plugin initialized {direct['ready_ms']:.0f} ms")
print(f"{len(ids)} get_weather_alerts calls, one per turn ({len(model)} asked, {len(recorded)} recorded as successes)")
print(f"  the runtime's own (bare langbot-plugin host, {direct['calls']} calls): p50 {d50:.2f} ms, p99 {d99:.2f} ms")
print(f"  through LangBot (recorded duration, 1 ms resolution): p50 {pct(rec, 50):.2f} ms, p99 {pct(rec, 99):.2f} ms"
      f" → host-side overhead p50 {pct(rec, 50) - d50:.2f} ms, p99 {pct(rec, 99) - d99:.2f} ms")
print(f"  the whole round (model asked → model got the result, incl. recording it): p50 {pct(path, 50):.2f} ms,"
      f" p99 {pct(path, 99):.2f} ms → over the runtime's own p50 {pct(path, 50) - d50:.2f} ms, p99 {pct(path, 99) - d99:.2f} ms")
PY
