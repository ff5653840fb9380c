#!/usr/bin/env bash
# The benchmarks of the issues, in one run against a release build on loopback (wrk):
#   /healthz (baseline) · GET /system/context (API key) · GET /provider/models/llm with 20 models
#   GET /platform/bots with 10 bots · POST …/event-routes/dry-run (API key)
#   POST /bots/{uuid}/sync (the whole inbound path with an instantly answering fake model)
# plus time to readiness and peak resident memory.
#   bench/run.sh [duration-seconds] [connections]
# On SQLite unless LANGBOT_DATABASE_URL names another database (e.g. a running PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"
THREADS=$(( CONNECTIONS < 2 ? CONNECTIONS : 2 ))
# shellcheck source=lib.sh
source bench/lib.sh
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DIR"' EXIT
start_langbot
setup_owner
for i in $(seq 20); do MODEL=$(api POST /provider/models/llm "{\"name\":\"m$i\",\"provider_uuid\":\"$PROVIDER\"}" | json '["data"]["uuid"]'); done
PIPELINE=$(api POST /pipelines "{\"name\":\"bench\",\"is_default\":true,\"config\":{\"ai\":{\"runner_config\":{\"local-agent\":{\"model\":{\"primary\":\"$MODEL\"}}}},\"safety\":{\"rate-limit\":{\"limitation\":100000}}}}" | json '["data"]["uuid"]')
for i in $(seq 10); do BOT=$(create_bot "bot$i"); done

cat > "$DIR/dry_run.lua" <<LUA
wrk.method = "POST"
wrk.headers["X-API-Key"] = "$KEY"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"event_type":"message.received","event_data":{"group":{"id":"g"},"message_chain":[{"type":"At","target":"b"},{"type":"Plain","text":"hi"}]},"context":{"bot_account_id":"b"}}'
LUA
cat > "$DIR/sync.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
-- Every request is a new session: thread number plus a per-thread counter (each wrk thread
-- has its own Lua state with the same random seed, so random ids would collide).
threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"session_id":"s-%d-%d","message":[{"type":"Plain","text":"ping"}]}', tid, counter)
  return wrk.format(nil, nil, nil, body)
end
-- Which statuses came back (per thread; the first of each kind is printed with its body).
seen = {}
response = function(status, headers, body)
  if status ~= 200 and not seen[status] then
    seen[status] = true
    io.stderr:write(string.format("sync answered %d: %s\n", status, string.sub(body, 1, 300)))
  end
end
LUA

run() { # name, wrk args...
  local name="$1"; shift
  local out; out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@")
  local rps p50 p99 errors
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" | tr '\n' ' ' || true)
  printf '%-44s %10s req/s   p50 %8s   p99 %8s   RSS %6s MiB  %s\n' "$name" "$rps" "$p50" "$p99" \
    "$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$PID/status")" "$errors"
  echo "$rps" > "$DIR/last"
}

echo "LangBot bench: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, release build, $(db=${LANGBOT_DATABASE_URL:-sqlite:}; echo "${db%%:*}"), $(nproc) cores"
run "GET /healthz" "$BASE/healthz"; health=$(cat "$DIR/last")
run "GET /api/v1/system/context (API key)" -H "X-API-Key: $KEY" "$BASE/api/v1/system/context"; ctx=$(cat "$DIR/last")
run "GET /api/v1/provider/models/llm (20, key)" -H "X-API-Key: $KEY" "$BASE/api/v1/provider/models/llm"; models=$(cat "$DIR/last")
run "GET /api/v1/platform/bots (10, key)" -H "X-API-Key: $KEY" "$BASE/api/v1/platform/bots"; bots=$(cat "$DIR/last")
run "POST …/event-routes/dry-run (key)" -s "$DIR/dry_run.lua" "$BASE/api/v1/platform/bots/$BOT/event-routes/dry-run"; dry=$(cat "$DIR/last")
cat > "$DIR/model.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"m","messages":[{"role":"user","content":"ping"}],"stream":true}'
LUA
run "fake model alone (its own latency)" -s "$DIR/model.lua" "http://127.0.0.1:$UP/v1/chat/completions"
run "POST /bots/{uuid}/sync (whole turn)" -s "$DIR/sync.lua" "$BASE/bots/$BOT/sync"; turns=$(cat "$DIR/last")
rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
python3 - "$health" "$ctx" "$models" "$bots" "$dry" "$turns" "$ready_ms" "$rss_kib" <<'PY'
import sys
h, c, m, b, d, t = map(float, sys.argv[1:7])
ready, rss = int(sys.argv[7]), int(sys.argv[8])
for name, v in [("system/context", c), ("models list", m), ("bots list", b), ("dry-run", d), ("sync turn", t)]:
    print(f"{name:>16} / healthz throughput: {v / h:.2f}")
print(f"ready in {ready} ms; peak RSS {rss / 1024:.1f} MiB")
PY
