#!/usr/bin/env bash
# Run inside scripts/cluster.sh run: the model provider (timeout configured to 2 s) hangs
# for 10 s on 12 turns and answers HTTP 500 on 6 others, sent through the proxy. The hanging
# turns fail by the configured timeout, the others at once, each recorded as a failed
# execution with its error and its failed model call, the user told once; API reads stay
# fast meanwhile (their latency is measured before and during). Prints the detect (a hanging
# turn's start -> failed, the longest of them) and recover (a healthy provider answers again)
# times.
set -euo pipefail
source tests/cluster/lib.sh
start_fake_model
setup_bot 2

latencies() { # count: read latencies (ms) through the proxy, sorted
  for _ in $(seq "$1"); do
    curl -s -m 5 -o /dev/null -w '%{http_code} %{time_total}\n' "$CLUSTER_URL/api/v1/monitoring/executions" \
      -H "authorization: Bearer $TOKEN"
    sleep 0.05
  done | awk '$1 != 200 { print "FAIL " $1; next } { printf "%.1f\n", $2 * 1000 }' | sort -n
}
pct() { awk -v p="$1" '{ a[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print a[i] }'; }

before="$(latencies 20)"
grep -q FAIL <<<"$before" && fail "reads failed before the fault: $before"

# Reads are sampled while the turns are sent and hang.
latencies 40 >"$CLUSTER_DIR/during.txt" &
sampler=$!
slow=(); failing=()
for i in $(seq 12); do read -r status id < <(send "slow-$i" "hello slow=10"); [ "$status" = 202 ] || fail "refused: $status"; slow+=("$id"); done
for i in $(seq 6); do read -r status id < <(send "fail-$i" "hello fail"); [ "$status" = 202 ] || fail "refused: $status"; failing+=("$id"); done
wait "$sampler"
during="$(cat "$CLUSTER_DIR/during.txt")"
grep -q FAIL <<<"$during" && fail "reads failed during the fault: $(grep FAIL <<<"$during" | head -3)"

slow_sql="'$(IFS=,; echo "${slow[*]}" | sed "s/,/','/g")'"
deadline=$((SECONDS + 15))
until [ "$(sql "select count(*) from monitoring_executions where message_id in ($slow_sql) and status = 'failed'")" = 12 ]; do
  [ $SECONDS -lt $deadline ] || fail "timed-out turns not failed within 15s: $(sql "select status, error from monitoring_executions where message_id in ($slow_sql)")"
  sleep 0.1
done
# Detect: how long a turn hangs before it fails, the configured 2 s, not the model's 10 s.
longest=$(sql "select max(duration_ms) from monitoring_executions where message_id in ($slow_sql)")
[ "$longest" -lt 8000 ] || fail "a timed-out turn took ${longest} ms (timeout 2 s, model 10 s)"
detect=$(awk -v ms="$longest" 'BEGIN { printf "%.2f", ms / 1000 }')
no_timeout=$(sql "select count(*) from monitoring_executions where message_id in ($slow_sql) and error not ilike '%tim%out%'")
[ "$no_timeout" = 0 ] || fail "$no_timeout turns failed without saying they timed out: $(sql "select error from monitoring_executions where message_id in ($slow_sql) limit 1")"
echo "ok: 12 hanging turns failed by the 2s timeout: the longest took ${detect}s"

fail_sql="'$(IFS=,; echo "${failing[*]}" | sed "s/,/','/g")'"
deadline=$((SECONDS + 10))
until [ "$(sql "select count(*) from monitoring_executions where message_id in ($fail_sql) and status = 'failed'")" = 6 ]; do
  [ $SECONDS -lt $deadline ] || fail "turns of a failing provider not failed: $(sql "select status, error from monitoring_executions where message_id in ($fail_sql)")"
  sleep 0.1
done
all_sql="$slow_sql,$fail_sql"
[ "$(sql "select count(distinct execution_id) from monitoring_llm_calls where status = 'error' and execution_id in (select id from monitoring_executions where message_id in ($all_sql))")" = 18 ] \
  || fail "failed model calls not recorded for every failed turn"
[ "$(sql "select count(distinct execution_id) from monitoring_errors where execution_id in (select id from monitoring_executions where message_id in ($all_sql))")" = 18 ] \
  || fail "errors not recorded for every failed turn"
sleep 1
for id in "${slow[@]}" "${failing[@]}"; do
  [ "$(callbacks_for "$id")" = 1 ] || fail "failed turn $id answered $(callbacks_for "$id") times (expected the one failure notice)"
done
echo "ok: 6 turns of a failing provider (HTTP 500) failed; 18 failed executions with their model call and error recorded, each user told once"

b50=$(pct 50 <<<"$before"); b99=$(pct 99 <<<"$before"); d50=$(pct 50 <<<"$during"); d99=$(pct 99 <<<"$during")
echo "ok: read latency (GET /api/v1/monitoring/executions) before p50 ${b50} ms p99 ${b99} ms; during the fault p50 ${d50} ms p99 ${d99} ms"
awk -v d="$d99" 'BEGIN { exit !(d < 500) }' || fail "reads slowed down to p99 ${d99} ms during the fault"

t1="$(now)"
read -r status id < <(send "healthy" "hello")
deadline=$((SECONDS + 10))
until [ "$(sql "select status from monitoring_executions where message_id = '$id'")" = completed ]; do
  [ $SECONDS -lt $deadline ] || fail "a turn after the fault did not complete"
  sleep 0.05
done
recover="$(since "$t1")"
wait_settled 15
check_ledger
echo "ok: the next turn completed after ${recover}s"
echo "RESULT slow_model detect=${detect}s recover=${recover}s"
