#!/usr/bin/env bash
# Run inside scripts/cluster.sh run (with a short LANGBOT_EXECUTION_LEASE): six sessions each
# have a first turn, then a slow second turn on replica 1, which is killed with SIGKILL in
# the middle of them while turns also arrive through the proxy. The other replicas' reaper
# fails the dead replica's executions within the lease (plus one reaper period); the sessions
# go on on the other replicas with their history; no message is answered or run twice.
# Prints the detect (kill -> executions failed) and recover (next turns answered) times.
set -euo pipefail
source tests/cluster/lib.sh
start_fake_model
setup_bot
lease="${LANGBOT_EXECUTION_LEASE:-120s}"; lease="${lease%s}"
victim_url="${REPLICA_URLS[0]}"; victim_pid="${REPLICA_PIDS[0]}"
LOG="$CLUSTER_DIR/load.log"; STOP="$CLUSTER_DIR/stop-load"

wait_answered() { # seconds id...: every id got its callback
  local deadline=$((SECONDS + $1)); shift
  for id in "$@"; do
    until [ "$(callbacks_for "$id")" -ge 1 ]; do
      [ $SECONDS -lt $deadline ] || fail "message $id not answered in time"
      sleep 0.1
    done
  done
}

sessions=(k1 k2 k3 k4 k5 k6)
first=()
for s in "${sessions[@]}"; do read -r _ id < <(send "$s" "hist"); first+=("$id"); done
wait_answered 15 "${first[@]}"
slow=()
for s in "${sessions[@]}"; do
  read -r status id < <(send "$s" "hist slow=30" "$victim_url")
  [ "$status" = 202 ] || fail "the victim refused a turn: $status"
  slow+=("$id")
done
ids_sql="'$(IFS=,; echo "${slow[*]}" | sed "s/,/','/g")'"
deadline=$((SECONDS + 10))
until [ "$(sql "select count(*) from monitoring_executions where message_id in ($ids_sql) and status = 'running' and progress_event = 'ai'")" = 6 ]; do
  [ $SECONDS -lt $deadline ] || fail "the slow turns did not reach the model on the victim"
  sleep 0.1
done
victim_owner=$(sql "select distinct owner from monitoring_executions where message_id in ($ids_sql)")

# Background turns through the proxy, across the kill.
load() {
  local i=0
  while [ ! -e "$STOP" ] && [ -d "$CLUSTER_DIR" ]; do
    i=$((i + 1)); echo "$(now) $(send "bg-$1-$i" "hello slow=0.5")" >>"$LOG"; sleep 0.1
  done
}
loaders=(); for n in 1 2; do load "$n" & loaders+=($!); done
sleep 2

t0="$(now)"
kill -KILL "$victim_pid"
deadline=$((SECONDS + lease * 2 + 10))
until [ "$(sql "select count(*) from monitoring_executions where message_id in ($ids_sql) and status = 'failed'")" = 6 ]; do
  [ $SECONDS -lt $deadline ] || fail "the dead replica's executions were not failed within $((lease * 2 + 10))s: $(sql "select status, lease_expires_at from monitoring_executions where message_id in ($ids_sql)")"
  sleep 0.1
done
detect="$(since "$t0")"
reaped_by_lease=$(awk -v d="$detect" -v l="$lease" 'BEGIN { print (d <= l * 4 / 3 + 1) ? "yes" : "no" }')
echo "ok: kill -9 -> the dead replica's 6 executions failed by the others' reaper after ${detect}s (lease ${lease}s; within lease + one reaper period: $reaped_by_lease)"
[ "$reaped_by_lease" = yes ] || fail "reaped later than the lease and one reaper period"

t1="$(now)"
next=()
for s in "${sessions[@]}"; do
  read -r status id < <(send "$s" "hist")
  [ "$status" = 202 ] || fail "session $s refused after the kill: $status"
  next+=("$id")
done
wait_answered 20 "${next[@]}"
recover="$(since "$t1")"
for id in "${next[@]}"; do
  # The first turn and this one: the killed turn never completed, so it is not in the history.
  grep "\"reply_to\": *\"$id\"" "$CALLBACKS" | grep -q 'pong history=2' \
    || fail "turn $id lost its session's history: $(grep "\"reply_to\": *\"$id\"" "$CALLBACKS")"
  owner=$(sql "select owner from monitoring_executions where message_id = '$id'")
  [ "$owner" != "$victim_owner" ] || fail "turn $id ran on the dead replica"
done
echo "ok: the 6 sessions answered on the other replicas with their history after ${recover}s"
touch "$STOP"; wait "${loaders[@]}"

for id in "${slow[@]}"; do
  [ "$(callbacks_for "$id")" = 0 ] || fail "killed turn $id was answered"
done
wait_settled $((lease * 2 + 10))
check_ledger
bad=$(sql "select count(*) from (select message_id from monitoring_executions where message_id is not null group by message_id having count(*) > 1) x")
[ "$bad" = 0 ] || fail "$bad messages ran more than once"
accepted=$(awk '$2 == 202 { print $3 }' "$LOG"); refused=$(awk '$2 != 202' "$LOG" | wc -l)
missing=0; twice=0
for id in $accepted; do
  [ -n "$(sql "select id from monitoring_executions where message_id = '$id'")" ] || missing=$((missing + 1))
  [ "$(callbacks_for "$id")" -le 1 ] || twice=$((twice + 1))
done
[ "$twice" = 0 ] || fail "$twice background messages answered twice"
[ "$missing" = 0 ] || fail "$missing accepted background messages have no execution"
[ "$refused" = 0 ] || fail "$refused background messages refused through the proxy: $(awk '$2 != 202' "$LOG" | head -3)"
echo "ok: $(wc -w <<<"$accepted") background turns through the proxy across the kill: all accepted, each with one execution, none answered twice"
echo "RESULT replica_kill detect=${detect}s recover=${recover}s"
