#!/usr/bin/env bash
# Run inside scripts/cluster.sh run: PostgreSQL is stopped under load (http_bot turns and API
# reads through the proxy) and started again 5 s later. While it is down every failure is a 503
# with its error code (`unavailable` for the API, 50301 for the bot ingress), never a 500 or a
# proxy error; when it is back every replica serves again without a restart; afterwards every
# turn's records are all there or its execution is failed (no partial writes), and no accepted
# message was answered twice. Prints the detect and recover times.
set -euo pipefail
source tests/cluster/lib.sh
start_fake_model
setup_bot
LOG="$CLUSTER_DIR/load.log"
STOP="$CLUSTER_DIR/stop-load"
port="${TEST_PG_URL##*:}"; port="${port%%/*}"

# The load: turns (the model answers in 0.4 s, so some are mid-turn when the database goes)
# and reads, each line "time kind status code-or-id".
turns() {
  local i=0 r
  while [ ! -e "$STOP" ] && [ -d "$CLUSTER_DIR" ]; do
    i=$((i + 1)); r=$(send "pg-$1-$i" "hello slow=0.4")
    echo "$(now) turn $r" >>"$LOG"; sleep 0.05
  done
}
reads() {
  local out status
  while [ ! -e "$STOP" ] && [ -d "$CLUSTER_DIR" ]; do
    out=$(curl -s -m 5 -w '\n%{http_code}' "$CLUSTER_URL/api/v1/platform/bots" -H "authorization: Bearer $TOKEN" || true)
    status="${out##*$'\n'}"
    code=$(printf '%s' "${out%$'\n'*}" | python3 -c 'import json,sys
try: print(json.load(sys.stdin).get("code", "-"))
except Exception: print("not-json")')
    echo "$(now) read $status $code" >>"$LOG"; sleep 0.05
  done
}
loaders=()
for n in 1 2; do turns "$n" & loaders+=($!); done
reads & loaders+=($!)
sleep 3

t0="$(now)"
as_postgres "$(pg_bindir)/pg_ctl" -D "$CLUSTER_PG_DIR" -m fast -w stop >/dev/null
stopped="$(now)"
# Detect: a read through the proxy answers 503 `unavailable`.
deadline=$((SECONDS + 15))
until [ "$(curl -s -m 8 "$CLUSTER_URL/api/v1/platform/bots" -H "authorization: Bearer $TOKEN" -o /dev/null -w '%{http_code}')" = 503 ]; do
  [ $SECONDS -lt $deadline ] || fail "no 503 within 15s of PostgreSQL stopping"
  sleep 0.1
done
detect="$(since "$t0")"
for url in "${REPLICA_URLS[@]}"; do
  [ "$(code_of "$url/readyz")" = 503 ] || fail "readyz of $url is not 503 while PostgreSQL is down"
done
echo "ok: PostgreSQL down -> 503 through the proxy after ${detect}s, readyz 503 on every replica"
sleep 5

t1="$(now)"
as_postgres "$(pg_bindir)/pg_ctl" -D "$CLUSTER_PG_DIR" -l "$CLUSTER_PG_DIR/server.log" -w -o \
  "-p $port -k $CLUSTER_PG_DIR -c listen_addresses=127.0.0.1 -c max_connections=400 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
  start >/dev/null
restarted="$(now)"
all_serving() {
  for url in "${REPLICA_URLS[@]}"; do
    [ "$(code_of "$url/readyz")" = 200 ] || return 1
    [ "$(code_of "$url/api/v1/platform/bots" -H "authorization: Bearer $TOKEN")" = 200 ] || return 1
  done
}
deadline=$((SECONDS + 30))
until all_serving; do
  [ $SECONDS -lt $deadline ] || fail "not every replica serves within 30s of PostgreSQL coming back"
  sleep 0.1
done
recover="$(since "$t1")"
echo "ok: PostgreSQL back -> every replica ready and serving reads after ${recover}s (no restart)"
# Each replica runs a turn to its end again.
for url in "${REPLICA_URLS[@]}"; do
  read -r status id < <(send "pg-after-$RANDOM" "after the restart" "$url")
  [ "$status" = 202 ] || fail "$url refused a message after the restart: $status"
  echo "$id" >>"$CLUSTER_DIR/after-ids"
done
sleep 2
touch "$STOP"; wait "${loaders[@]}"

# While down (the stop call to the restart's end): only 503s with their codes.
read -r ok refused bad < <(awk -v a="$stopped" -v b="$restarted" '
  $1 >= a && $1 <= b { if ($3 == 200 || $3 == 202) ok++; else if (($2 == "read" && $3 == 503 && $4 == "unavailable") || ($2 == "turn" && $3 == 503)) refused++; else { bad++; print > "/dev/stderr" } }
  END { print ok + 0, refused + 0, bad + 0 }' "$LOG")
[ "$refused" -gt 0 ] || fail "no request was refused while PostgreSQL was down"
[ "$bad" = 0 ] || fail "$bad requests failed otherwise than 503 while PostgreSQL was down"
echo "ok: while down, $refused requests refused with 503 (API code unavailable, ingress 503), $ok answered, 0 other failures"
other=$(awk '$3 != 200 && $3 != 202 && $3 != 503' "$LOG" | head -5)
[ -z "$other" ] || fail "failures other than 503 during the run: $other"

wait_settled 30
check_ledger
accepted=$(awk '$2 == "turn" && $3 == 202 { print $4 }' "$LOG")
n_accepted=$(wc -l <<<"$accepted")
missing=0; twice=0; failed=0; completed=0
for id in $accepted $(cat "$CLUSTER_DIR/after-ids"); do
  status=$(sql "select string_agg(status, ',') from monitoring_executions where message_id = '$id'")
  case "$status" in
    completed) completed=$((completed + 1)) ;;
    failed) failed=$((failed + 1)) ;;
    "") missing=$((missing + 1)) ;;
    *) fail "message $id has executions: $status" ;;
  esac
  [ "$(callbacks_for "$id")" -le 1 ] || twice=$((twice + 1))
done
[ "$twice" = 0 ] || fail "$twice messages answered more than once"
[ "$missing" = 0 ] || fail "$missing accepted messages have no execution"
for id in $(cat "$CLUSTER_DIR/after-ids"); do
  [ "$(sql "select status from monitoring_executions where message_id = '$id'")" = completed ] || fail "the turn after the restart ($id) did not complete"
done
echo "ok: $n_accepted accepted turns under load: $completed completed, $failed failed (records complete or execution failed), none answered twice"
echo "RESULT postgres_restart detect=${detect}s recover=${recover}s"
