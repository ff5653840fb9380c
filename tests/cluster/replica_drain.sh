#!/usr/bin/env bash
# Run inside scripts/cluster.sh run (LANGBOT_DRAIN_TIMEOUT bounds the drain): replica 1 has
# three accepted turns and two open /sync requests in flight (the model takes 4 s) when it
# gets SIGTERM. The proxy sends it no new work from then on (the nginx log names the
# upstream that answered), requests through the proxy meanwhile all succeed, its in-flight
# turns and requests finish, and it exits 0 within the drain time. Prints the detect
# (SIGTERM -> the replica refuses new work) and recover (SIGTERM -> exited 0) times.
set -euo pipefail
source tests/cluster/lib.sh
start_fake_model
setup_bot
drain="${LANGBOT_DRAIN_TIMEOUT:-30s}"; drain="${drain%s}"
victim_url="${REPLICA_URLS[0]}"; victim_pid="${REPLICA_PIDS[0]}"; victim="${victim_url#http://}"

turns=()
for i in 1 2 3; do
  read -r status id < <(send "drain-$i" "hello slow=4" "$victim_url")
  [ "$status" = 202 ] || fail "the victim refused a turn: $status"
  turns+=("$id")
done
syncs=()
for i in 1 2; do
  curl -s -m 30 -o "$CLUSTER_DIR/sync-$i.json" -w '%{http_code}' -XPOST "$victim_url/bots/$BOT/sync" \
    -H 'content-type: application/json' \
    -d "{\"session_id\":\"drain-sync-$i\",\"message\":[{\"type\":\"Plain\",\"text\":\"hi slow=4\"}]}" \
    >"$CLUSTER_DIR/sync-$i.status" &
  syncs+=($!)
done
ids_sql="'$(IFS=,; echo "${turns[*]}" | sed "s/,/','/g")'"
deadline=$((SECONDS + 10))
until [ "$(sql "select count(*) from monitoring_executions where status = 'running' and progress_event = 'ai'")" = 5 ]; do
  [ $SECONDS -lt $deadline ] || fail "the in-flight turns did not reach the model"
  sleep 0.1
done

mark=$(wc -l <"$CLUSTER_DIR/nginx-access.log")
t0="$(now)"
kill -TERM "$victim_pid"
deadline=$((SECONDS + 5))
until [ "$(code_of "$victim_url/healthz")" != 200 ]; do
  [ $SECONDS -lt $deadline ] || fail "the SIGTERM'd replica still takes new connections after 5s"
  sleep 0.05
done
detect="$(since "$t0")"
echo "ok: SIGTERM -> the replica refuses new connections after ${detect}s"

# New work through the proxy while it drains: reads and turns, all answered by the others.
errors=0; new=()
for i in $(seq 20); do
  [ "$(code_of "$CLUSTER_URL/api/v1/platform/bots" -H "authorization: Bearer $TOKEN")" = 200 ] || errors=$((errors + 1))
  read -r status id < <(send "drain-new-$i" "hello")
  if [ "$status" = 202 ]; then new+=("$id"); else errors=$((errors + 1)); fi
done
[ "$errors" = 0 ] || fail "$errors requests through the proxy failed while a replica drained"

# No slack: the drain time bounds the whole stop, signal to exit (startup.rs keeps a part of
# it for the workers' stop and the exit).
while kill -0 "$victim_pid" 2>/dev/null; do
  [ "$(awk -v a="$t0" -v b="$(now)" 'BEGIN {print (b - a > '"$drain"')}')" = 0 ] \
    || fail "the SIGTERM'd replica still runs after the ${drain}s drain time"
  sleep 0.05
done
# The exit time as the replica's wrapper saw it: this loop only starts after the 40 requests
# above, which can take longer than the drain itself on a loaded machine.
for _ in $(seq 40); do [ -s "$CLUSTER_DIR/replica-1/exit-code" ] && break; sleep 0.05; done
recover="$(awk -v a="$t0" -v b="$(cat "$CLUSTER_DIR/replica-1/exited-at")" 'BEGIN {printf "%.2f", b - a}')"
[ "$(awk -v r="$recover" 'BEGIN {print (r <= '"$drain"')}')" = 1 ] \
  || fail "the SIGTERM'd replica exited after ${recover}s, past the ${drain}s drain time"
status="$(cat "$CLUSTER_DIR/replica-1/exit-code" 2>/dev/null || echo none)"
[ "$status" = 0 ] || fail "the SIGTERM'd replica exited with $status"
echo "ok: the replica drained and exited 0 after ${recover}s (drain time ${drain}s)"
wait "${syncs[@]}"

for i in 1 2; do
  [ "$(cat "$CLUSTER_DIR/sync-$i.status")" = 200 ] || fail "in-flight /sync $i ended with $(cat "$CLUSTER_DIR/sync-$i.status")"
  grep -q '"text":"pong"' "$CLUSTER_DIR/sync-$i.json" || fail "in-flight /sync $i: $(cat "$CLUSTER_DIR/sync-$i.json")"
done
[ "$(sql "select count(*) from monitoring_executions where message_id in ($ids_sql) and status = 'completed'")" = 3 ] \
  || fail "in-flight turns did not complete: $(sql "select status, error from monitoring_executions where message_id in ($ids_sql)")"
for id in "${turns[@]}"; do [ "$(callbacks_for "$id")" = 1 ] || fail "in-flight turn $id answered $(callbacks_for "$id") times"; done
echo "ok: the 2 in-flight /sync requests answered and the 3 in-flight turns completed and answered once"

# The proxy's log after the SIGTERM: no request answered by the draining replica.
on_victim=$(tail -n +"$((mark + 1))" "$CLUSTER_DIR/nginx-access.log" | awk -v v="$victim" 'match($0, /up=\[[^]]*\]/) { n = split(substr($0, RSTART + 4, RLENGTH - 5), a, ", "); if (a[n] == v) c++ } END { print c + 0 }')
[ "$on_victim" = 0 ] || fail "$on_victim requests after the SIGTERM were answered by the draining replica"
wait_settled 20
for id in "${new[@]}"; do [ "$(sql "select status from monitoring_executions where message_id = '$id'")" = completed ] || fail "turn $id did not complete"; done
check_ledger
echo "ok: 40 requests through the proxy during the drain: 0 errors, none sent to the draining replica"
echo "RESULT replica_drain detect=${detect}s recover=${recover}s"
