#!/usr/bin/env bash
# The load test over the proxy: on the loopback cluster (scripts/cluster.sh: three replicas,
# nginx, PostgreSQL, Redis), wrk sends API reads and http_bot turns (each a new session; the
# fake model answers at once) through nginx at the same time for a fixed time, then the turns
# still running are waited for and the ledger is checked: every accepted message has exactly
# one execution, completed, and exactly one reply delivered to the callback.
#
#   bench/cluster.sh [SECONDS]        (default 30; BENCH_READ_CONNECTIONS=8, BENCH_TURN_CONNECTIONS=4)
#
# Prints throughput, p50/p99 and errors per kind, how the proxy spread the requests over the
# replicas, and the check's result; exits non-zero on any error or a broken invariant.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${CLUSTER_URL:-}" ]; then
  export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
  command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
  exec scripts/cluster.sh run "$0" "$@"
fi
source tests/cluster/lib.sh
DURATION="${1:-30}"
READ_CONNECTIONS="${BENCH_READ_CONNECTIONS:-8}"
TURN_CONNECTIONS="${BENCH_TURN_CONNECTIONS:-4}"
start_fake_model
setup_bot
for i in 1 2 3 4; do
  api POST /platform/bots "{\"name\":\"reader $i\",\"adapter\":\"http_bot\",\"enable\":false,\"adapter_config\":{\"inbound_secret\":\"s\",\"callback_url\":\"$FAKE_URL/cb\"}}" >/dev/null
done
W="$CLUSTER_DIR/bench"; mkdir -p "$W"

cat >"$W/turns.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("tid", threads)
end
init = function(args)
  accepted = io.open(string.format("$W/accepted-%d.txt", tid), "w")
  counter = 0
end
request = function()
  counter = counter + 1
  local body = string.format('{"session_id":"load-%d-%d","message":[{"type":"Plain","text":"hello"}]}', tid, counter)
  return wrk.format(nil, nil, nil, body)
end
response = function(status, headers, body)
  if status == 202 then
    accepted:write(string.match(body, '"accepted_message_id":"([^"]+)"'), "\n")
    accepted:flush()
  else
    io.stderr:write(string.format("turn answered %d: %s\n", status, string.sub(body, 1, 200)))
  end
end
LUA
cat >"$W/reads.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $TOKEN"
response = function(status, headers, body)
  if status ~= 200 then io.stderr:write(string.format("read answered %d: %s\n", status, string.sub(body, 1, 200))) end
end
LUA

mark=$(wc -l <"$CLUSTER_DIR/nginx-access.log")
echo "load: ${DURATION}s through nginx ($CLUSTER_URL) to ${#REPLICA_URLS[@]} replicas; reads: wrk -t1 -c$READ_CONNECTIONS GET /api/v1/platform/bots; turns: wrk -t2 -c$TURN_CONNECTIONS POST /bots/{uuid} (http_bot, a new session each); $(nproc) cores shared by everything; load:$(uptime | sed 's/.*load average://')"
wrk -t1 -c"$READ_CONNECTIONS" -d"${DURATION}s" --latency -s "$W/reads.lua" "$CLUSTER_URL/api/v1/platform/bots" >"$W/reads.out" 2>"$W/reads.err" &
reads_pid=$!
wrk -t2 -c"$TURN_CONNECTIONS" -d"${DURATION}s" --latency -s "$W/turns.lua" "$CLUSTER_URL/bots/$BOT" >"$W/turns.out" 2>"$W/turns.err"
wait "$reads_pid"
ended="$(now)"

summary() { # name wrk-output
  awk -v name="$1" '
    /Requests\/sec/ { rps = $2 } / requests in / { n = $1 }
    $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
    /Non-2xx/ { non2xx = $NF } /Socket errors/ { sock = $0 }
    END { printf "%-34s %8s req/s  (%s requests)  p50 %8s  p99 %8s  errors: non-2xx %d%s\n", name, rps, n, p50, p99, non2xx, (sock ? "; " sock : "") }' "$2"
}
summary "reads GET /api/v1/platform/bots" "$W/reads.out"
summary "turns POST /bots/{uuid} (202)" "$W/turns.out"
errors=$(cat "$W/reads.out" "$W/turns.out" | awk '/Non-2xx/ { e += $NF } /Socket errors/ { e += 1 } END { print e + 0 }')
head -3 "$W/reads.err" "$W/turns.err" | grep -v '^==>' | grep . || true
tail -n +"$((mark + 1))" "$CLUSTER_DIR/nginx-access.log" | awk '
  match($0, /up=\[[^]]*\]/) { n = split(substr($0, RSTART + 4, RLENGTH - 5), a, ", "); c[a[n]]++ }
  END { printf "spread over the replicas:"; for (u in c) printf "  %s %d", u, c[u]; print "" }'

cat "$W"/accepted-*.txt >"$W/accepted.txt"
accepted=$(wc -l <"$W/accepted.txt")
# Turns accepted near the end may still be running: they get 60 s.
wait_settled 60
settle="$(since "$ended")"
sql "select message_id, status, (select count(*) from monitoring_messages m where m.execution_id = e.id and m.role = 'assistant') from monitoring_executions e where message_id like 'in\\_%'" >"$W/executions.txt"
python3 - "$W/accepted.txt" "$W/executions.txt" "$CALLBACKS" "$TURN_CONNECTIONS" <<'PY'
import collections, json, sys
accepted = [l.strip() for l in open(sys.argv[1]) if l.strip()]
in_flight_at_stop = int(sys.argv[4])
runs = collections.defaultdict(list)
for line in open(sys.argv[2]):
    mid, status, replies = line.rstrip("\n").split("|")
    runs[mid].append((status, int(replies)))
replies = collections.Counter(json.loads(l)["reply_to"] for l in open(sys.argv[3]) if l.strip())
problems = collections.Counter()
for mid in accepted:
    r = runs.get(mid, [])
    if len(r) != 1: problems[f"{len(r)} executions"] += 1
    elif r[0] != ("completed", 1): problems[f"execution {r[0][0]} with {r[0][1]} reply records"] += 1
    if replies[mid] != 1: problems[f"{replies[mid]} callbacks"] += 1
# wrk stops with a request per connection in flight: the server accepted those messages but
# wrk never read the 202. They must be whole too, and there can be no more of them than
# connections.
unseen = sorted(set(runs) - set(accepted))
if len(unseen) > in_flight_at_stop: problems["executions of messages never accepted"] += len(unseen)
for mid in unseen:
    if runs[mid] != [("completed", 1)] or replies[mid] != 1: problems["unread-202 message not whole"] += 1
print(f"check: {len(accepted)} accepted messages; {sum(1 for m in accepted if len(runs.get(m, [])) == 1)} with exactly one execution, "
      f"{sum(1 for m in accepted if replies[m] == 1)} with exactly one callback; {len(unseen)} more accepted while wrk stopped "
      f"(202 not read), each with one execution and one callback; problems: {dict(problems) or 'none'}")
sys.exit(1 if problems else 0)
PY
echo "the turns still running when the load stopped finished ${settle}s later"
check_ledger
[ "$errors" = 0 ] || fail "$errors requests failed during the load"
echo "ok: 0 errors, every accepted message ($accepted) has exactly one execution and one reply"
