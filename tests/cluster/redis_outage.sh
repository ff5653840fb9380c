#!/usr/bin/env bash
# Run inside scripts/cluster.sh run: Redis stopped -> every replica's readiness turns 503
# (bounded: 15s); Redis back on the same port -> every replica is ready again by itself (30s).
# Prints the measured detect and recover times.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
port="${TEST_REDIS_SERVER_URL##*:}"; port="${port%%/*}"
now() { date +%s.%N; }
all_are() { # status: every replica answers /readyz with it
  for url in $CLUSTER_REPLICA_URLS; do
    [ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "$url/readyz")" = "$1" ] || return 1
  done
}
wait_all() { # status seconds
  local deadline; deadline=$(( $(date +%s) + $2 ))
  until all_are "$1"; do [ "$(date +%s)" -lt "$deadline" ] || return 1; sleep 0.1; done
}

all_are 200 || fail "not every replica ready before the fault"
t0="$(now)"
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
wait_all 503 15 || fail "readiness did not turn 503 on every replica within 15s"
detect="$(echo "$(now) - $t0" | bc)"
echo "ok: Redis down -> readyz 503 on every replica after ${detect}s"

t1="$(now)"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$CLUSTER_DIR" \
  --daemonize yes --pidfile "$CLUSTER_DIR/redis-restarted.pid" --logfile "$CLUSTER_DIR/redis-restarted.log"
trap 'kill "$(cat "$CLUSTER_DIR/redis-restarted.pid" 2>/dev/null)" 2>/dev/null || true' EXIT
wait_all 200 30 || fail "not every replica recovered within 30s of Redis coming back"
recover="$(echo "$(now) - $t1" | bc)"
echo "ok: Redis back -> readyz 200 on every replica after ${recover}s"
