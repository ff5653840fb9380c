#!/usr/bin/env bash
# The benchmarks of the issues, in one run against a release build on loopback (wrk):
#   /healthz (baseline) · GET /system/context (API key) · GET /provider/models/llm with 20 models
#   GET /platform/bots with 10 bots · POST …/event-routes/dry-run (API key)
#   POST /bots/{uuid}/sync (the whole inbound path with an instantly answering fake model)
# plus time to readiness and peak resident memory, and the ratio table: each endpoint next to
# its bare twin (bench/bare.rs: a plain actix handler doing only the work itself, on the same
# database), with the CPU time each request cost the serving process.
#   bench/run.sh [duration-seconds] [connections] [rounds]
# On SQLite unless LANGBOT_DATABASE_URL names another database (e.g. a running PostgreSQL).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"
ROUNDS="${3:-5}"
# shellcheck source=lib.sh
source bench/lib.sh
# A pinned load generator has one core: one thread (as the issues measured).
if [ ${#ON_LOAD_CPU[@]} -gt 0 ]; then THREADS=1; else THREADS=$(( CONNECTIONS < 2 ? CONNECTIONS : 2 )); fi
build_twin
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DIR"' EXIT
start_langbot
setup_owner
for i in $(seq 20); do MODEL=$(api POST /provider/models/llm "{\"name\":\"m$i\",\"provider_uuid\":\"$PROVIDER\"}" | json '["data"]["uuid"]'); done
PIPELINE=$(api POST /pipelines "{\"name\":\"bench\",\"is_default\":true,\"config\":{\"ai\":{\"runner_config\":{\"local-agent\":{\"model\":{\"primary\":\"$MODEL\"}}}},\"safety\":{\"rate-limit\":{\"limitation\":100000}}}}" | json '["data"]["uuid"]')
for i in $(seq 10); do BOT=$(create_bot "bot$i"); done
WORKSPACE=$(curl -fs "$BASE/api/v1/system/context" -H "X-API-Key: $KEY" | json '["data"]["workspace_uuid"]')
# The setup's peak (its password hashes) is reported apart from the peak under load: writing 5
# to clear_refs resets the kernel's high-water mark (VmHWM).
setup_rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
echo 5 > "/proc/$PID/clear_refs" 2>/dev/null || true

TWIN_PORT="$(free_port)"; TWIN="http://127.0.0.1:$TWIN_PORT"
BARE_ADDR="127.0.0.1:$TWIN_PORT" BARE_DATABASE_URL="sqlite://$DIR/langbot.db" BARE_PUBLIC_URL="$BASE" \
  BARE_SECRET_KEYS=inbound_secret "${ON_SERVER_CPU[@]}" "$TWIN_BIN" & TWIN_PID=$!; PIDS+=($TWIN_PID)
until curl -fs "$TWIN/healthz" >/dev/null 2>&1; do sleep 0.005; done
# The twin must answer what the server answers, or the ratio means nothing.
python3 - <(curl -fs "$BASE/api/v1/platform/bots" -H "X-API-Key: $KEY") <(curl -fs "$TWIN/bots?workspace=$WORKSPACE") <<'PY'
import json, sys
server, twin = (json.load(open(p)) for p in sys.argv[1:3])
if server != twin:
    sys.exit(f"the bare twin's bots list differs from the server's:\n{server}\n{twin}")
PY

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

run() { # name, wrk args... (TARGET names the serving process; the server by default)
  local name="$1"; shift
  local target="${TARGET:-$PID}" before
  before=$(cpu_ticks "$target")
  local out; out=$("${ON_LOAD_CPU[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@")
  local rps p50 p99 errors requests cpu_us
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  cpu_us=$(awk -v t="$(( $(cpu_ticks "$target") - before ))" -v hz="$(getconf CLK_TCK)" -v n="$requests" \
    'BEGIN {printf "%.1f", (n > 0 ? t * 1e6 / hz / n : 0)}')
  p50=$(awk '$1=="50%" {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" | tr '\n' ' ' || true)
  printf '%-44s %10s req/s   p50 %8s   p99 %8s   %6s µs CPU/req   RSS %6s MiB  %s\n' "$name" "$rps" "$p50" "$p99" \
    "$cpu_us" "$(awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$target/status")" "$errors"
  echo "$rps $cpu_us" > "$DIR/last"
}

pinning="not pinned"; [ ${#ON_LOAD_CPU[@]} -gt 0 ] && pinning="server on CPU $SERVER_CPU, wrk on CPU $LOAD_CPU"
echo "LangBot bench: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s, release build, $(db=${LANGBOT_DATABASE_URL:-sqlite:}; echo "${db%%:*}"), $(nproc) cores, $pinning; load:$(uptime | sed 's/.*load average://')"
# The ratio table's endpoints run in rounds, each endpoint next to its twin, and a ratio is
# the median over the rounds of the ratio within each round: this machine's neighbours move
# its speed by a third from one minute to the next, which comparing runs far apart in time
# (or one endpoint's best minute with its twin's) would count as the server's.
keep() { cat "$DIR/last" >> "$DIR/runs.$1"; } # key: appends the last run's "req/s µs-CPU"
for round in $(seq "$ROUNDS"); do
  echo "-- round $round of $ROUNDS"
  TARGET=$TWIN_PID run "bare twin: fixed body" "$TWIN/healthz"; keep bare_health
  run "GET /healthz" "$BASE/healthz"; keep health
  run "GET /api/v1/system/info (no auth)" "$BASE/api/v1/system/info"; keep info
  TARGET=$TWIN_PID run "bare twin: bots list (10, one SELECT)" "$TWIN/bots?workspace=$WORKSPACE"; keep bare_bots
  run "GET /api/v1/platform/bots (10, key)" -H "X-API-Key: $KEY" "$BASE/api/v1/platform/bots"; keep bots
  run "GET /api/v1/platform/bots (10, session)" -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/platform/bots"; keep bots_session
done
echo "-- once each"
run "GET /api/v1/system/context (API key)" -H "X-API-Key: $KEY" "$BASE/api/v1/system/context"; ctx=$(cat "$DIR/last")
run "GET /api/v1/provider/models/llm (20, key)" -H "X-API-Key: $KEY" "$BASE/api/v1/provider/models/llm"; models=$(cat "$DIR/last")
run "POST …/event-routes/dry-run (key)" -s "$DIR/dry_run.lua" "$BASE/api/v1/platform/bots/$BOT/event-routes/dry-run"; dry=$(cat "$DIR/last")
cat > "$DIR/model.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"model":"m","messages":[{"role":"user","content":"ping"}],"stream":true}'
LUA
run "fake model alone (its own latency)" -s "$DIR/model.lua" "http://127.0.0.1:$UP/v1/chat/completions"
run "POST /bots/{uuid}/sync (whole turn)" -s "$DIR/sync.lua" "$BASE/bots/$BOT/sync"; turns=$(cat "$DIR/last")
rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
python3 - "$DIR" "$ctx" "$models" "$dry" "$turns" "$ready_ms" "$rss_kib" "$setup_rss_kib" "$ROUNDS" <<'PY'
import statistics, sys
runs = {}
for key in ["health", "bare_health", "info", "bots", "bots_session", "bare_bots"]:
    with open(f"{sys.argv[1]}/runs.{key}") as f:
        runs[key] = [[float(x) for x in line.split()] for line in f if line.strip()]
c, m, d, t = ([float(x) for x in a.split()] for a in sys.argv[2:6])
ready, rss, setup_rss = int(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
med = lambda key, i: statistics.median(r[i] for r in runs[key])
print(f"\nmedians of {sys.argv[9]} rounds; a ratio is the median of the rounds' own ratios")
print(f"{'endpoint':<28} {'req/s':>9} {'µs CPU':>7}   {'twin':<22} {'req/s':>9} {'µs CPU':>7}   {'ratio':>5} target")
for name, key, twin_name, twin, target in [
    ("GET /healthz", "health", "bare fixed body", "bare_health", 0.8),
    ("GET /system/info", "info", "GET /healthz", "health", 0.8),
    ("bots list, API key", "bots", "bare actix + SeaORM", "bare_bots", 0.8),
    ("bots list, session token", "bots_session", "bare actix + SeaORM", "bare_bots", 0.8),
]:
    ratios = [a[0] / b[0] for a, b in zip(runs[key], runs[twin])]
    ratio = statistics.median(ratios)
    verdict = "ok" if ratio >= target else "below"
    print(f"{name:<28} {med(key, 0):>9.0f} {med(key, 1):>7.1f}   {twin_name:<22} {med(twin, 0):>9.0f} {med(twin, 1):>7.1f}   {ratio:>5.2f} >= {target} {verdict}   rounds: {' '.join(f'{r:.2f}' for r in ratios)}")
print()
h = med("health", 0)
for name, v in [("system/context", c), ("models list", m), ("dry-run", d), ("sync turn", t)]:
    print(f"{name:>16} / healthz throughput: {v[0] / h:.2f}")
print(f"ready in {ready} ms; peak RSS under load {rss / 1024:.1f} MiB (target 30); during setup {setup_rss / 1024:.1f} MiB")
PY
# What the resident set is made of: the executable's mapped code (file-backed, shared with
# every process running it, mapped 64 KiB around each page executed) and private memory.
awk '/RssAnon|RssFile/ {printf "%s %.1f MiB  ", $1, $2 / 1024} END {print "(after the load)"}' "/proc/$PID/status"
