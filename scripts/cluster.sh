#!/usr/bin/env bash
# The compose topology without Docker, on loopback: one PostgreSQL, one Redis, three release
# `langbot` replicas and Debian's nginx with deploy/nginx/langbot.conf in front.
#
#   scripts/cluster.sh up            start it and wait (Ctrl-C stops everything)
#   scripts/cluster.sh run CMD...    start it, run CMD with the cluster's addresses in the
#                                    environment, stop it; exits with CMD's status
#   scripts/cluster.sh faults        the static compose check (scripts/compose-check.sh), then
#                                    every fault test in tests/cluster/, each on a fresh
#                                    cluster; prints each one's detect/recover times and
#                                    the suite's duration; fails if any test fails
#
# CMD sees CLUSTER_URL (the proxy), CLUSTER_REPLICA_URLS (space separated), CLUSTER_PIDS
# (replica pids, same order), CLUSTER_DIR, CLUSTER_PG_DIR (PostgreSQL's data directory),
# TEST_PG_URL, TEST_REDIS_SERVER_URL. LANGBOT_* variables reach the replicas.
# LANGBOT_BIN overrides the binary (default: the release build in CARGO_TARGET_DIR or target/).
# CLUSTER_REPLICAS sets the replica count (default 3). Missing nginx is installed with apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
# shellcheck source=lib/services.sh
source scripts/lib/services.sh

BIN="${LANGBOT_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/langbot}"
REPLICAS="${CLUSTER_REPLICAS:-3}"

ensure_nginx() {
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] && return 0
  if [ "$(id -u)" -ne 0 ]; then echo "nginx is missing: install it or run as root" >&2; exit 1; fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx >/dev/null
}

NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
CLUSTER_DIR=""
PIDS=()

stop_cluster() {
  set +e
  if [ -n "$CLUSTER_DIR" ] && [ -f "$CLUSTER_DIR/nginx.pid" ]; then
    "$NGINX" -p "$CLUSTER_DIR" -c "$CLUSTER_DIR/nginx.conf" -s stop 2>/dev/null
  fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  stop_services
  [ -n "$CLUSTER_DIR" ] && rm -rf "$CLUSTER_DIR"
}

wait_ready() { # url seconds
  local deadline=$((SECONDS + $2))
  until curl -fs -o /dev/null "$1/readyz"; do
    [ $SECONDS -lt $deadline ] || { echo "not ready: $1" >&2; return 1; }
    sleep 0.2
  done
}

start_replica() { # index port
  local dir="$CLUSTER_DIR/replica-$1"
  mkdir -p "$dir"
  (
  LANGBOT_HTTP_ADDR="127.0.0.1:$2" \
  LANGBOT_PUBLIC_URL="$CLUSTER_URL" \
  LANGBOT_DATA_DIR="$dir" \
  LANGBOT_DATABASE_URL="$TEST_PG_URL" \
  LANGBOT_REDIS_URL="$TEST_REDIS_SERVER_URL" \
  LANGBOT_TRUSTED_PROXIES="127.0.0.1/32" \
  LANGBOT_WEB_DIR="${LANGBOT_WEB_DIR:-$ROOT/web/dist}" \
  LANGBOT_PLUGIN_ENABLE="${LANGBOT_PLUGIN_ENABLE:-false}" \
  LANGBOT_LOG_FORMAT=json \
    "$BIN" serve >"$dir/langbot.log" 2>&1 &
    # The subshell waits for the binary so tests can read a drained replica's exit status.
    # ... and when it exited (exited-at, before exit-code), however busy the test is then.
    echo $! >"$dir/pid"; wait $!; code=$?; date +%s.%N >"$dir/exited-at"; echo "$code" >"$dir/exit-code"
  ) &
  for _ in $(seq 50); do [ -s "$dir/pid" ] && break; sleep 0.02; done
  PIDS+=("$(cat "$dir/pid")")
}

start_cluster() {
  [ -x "$BIN" ] || { echo "no binary at $BIN: cargo build --release -p langbot" >&2; exit 1; }
  ensure_services
  ensure_nginx
  start_services
  CLUSTER_DIR="$(mktemp -d /tmp/langbot-cluster.XXXXXX)"
  local proxy_port; proxy_port="$(free_port)"
  CLUSTER_URL="http://127.0.0.1:$proxy_port"

  local urls=() ports=()
  for i in $(seq 1 "$REPLICAS"); do ports+=("$(free_port)"); done
  # The first replica migrates the database; the others start once it is ready.
  for i in $(seq 1 "$REPLICAS"); do
    start_replica "$i" "${ports[$((i - 1))]}"
    urls+=("http://127.0.0.1:${ports[$((i - 1))]}")
    [ "$i" -eq 1 ] && wait_ready "${urls[0]}" 60
  done
  for url in "${urls[@]}"; do wait_ready "$url" 60; done

  # Only the upstream differs from compose: loopback ports instead of Docker's DNS.
  {
    echo "upstream langbot_backends {"
    echo "    least_conn;"
    for p in "${ports[@]}"; do echo "    server 127.0.0.1:$p max_fails=1 fail_timeout=5s;"; done
    echo "    keepalive 32;"
    echo "}"
  } >"$CLUSTER_DIR/upstream.conf"
  sed "s/listen 5300;/listen 127.0.0.1:$proxy_port;/" deploy/nginx/langbot.conf >"$CLUSTER_DIR/langbot.conf"
  mkdir -p "$CLUSTER_DIR/nginx-tmp"
  cat >"$CLUSTER_DIR/nginx.conf" <<CONF
worker_processes 1;
pid $CLUSTER_DIR/nginx.pid;
error_log $CLUSTER_DIR/nginx-error.log warn;
events { worker_connections 1024; }
http {
    # Which replica answered each request (the last address when nginx tried several).
    log_format cluster '\$msec \$status "\$request_method \$uri" up=[\$upstream_addr] \$request_time';
    access_log $CLUSTER_DIR/nginx-access.log cluster;
    client_body_temp_path $CLUSTER_DIR/nginx-tmp/body;
    proxy_temp_path $CLUSTER_DIR/nginx-tmp/proxy;
    fastcgi_temp_path $CLUSTER_DIR/nginx-tmp/fastcgi;
    uwsgi_temp_path $CLUSTER_DIR/nginx-tmp/uwsgi;
    scgi_temp_path $CLUSTER_DIR/nginx-tmp/scgi;
    include $CLUSTER_DIR/upstream.conf;
    include $CLUSTER_DIR/langbot.conf;
}
CONF
  "$NGINX" -p "$CLUSTER_DIR" -c "$CLUSTER_DIR/nginx.conf" -e "$CLUSTER_DIR/nginx-error.log"
  wait_ready "$CLUSTER_URL" 10

  export CLUSTER_URL CLUSTER_DIR CLUSTER_PG_DIR="$RUN_DIR/pg"
  export CLUSTER_REPLICA_URLS="${urls[*]}" CLUSTER_PIDS="${PIDS[*]}"
  echo "cluster: proxy $CLUSTER_URL, replicas $CLUSTER_REPLICA_URLS, dir $CLUSTER_DIR" >&2
}

# Each fault test with the settings it is bounded by: a short execution lease (the reaper's
# detection time) and drain time, so the suite stays within a few minutes.
FAULTS=(
  "tests/cluster/smoke.sh"
  "tests/cluster/redis_outage.sh"
  "tests/cluster/postgres_restart.sh"
  "tests/cluster/replica_kill.sh"
  "tests/cluster/replica_drain.sh"
  "tests/cluster/slow_model.sh"
)

run_faults() {
  local started=$SECONDS failed=() test t0
  # The compose stack cannot run here (no Docker daemon): its files are checked statically.
  echo "==> scripts/compose-check.sh"
  if scripts/compose-check.sh; then echo "<== compose check passed"; else failed+=("scripts/compose-check.sh"); fi
  for test in "${FAULTS[@]}"; do
    t0=$SECONDS
    echo "==> $test"
    if LANGBOT_EXECUTION_LEASE="${LANGBOT_EXECUTION_LEASE:-6s}" LANGBOT_DRAIN_TIMEOUT="${LANGBOT_DRAIN_TIMEOUT:-20s}" \
        "$0" run "$test"; then
      echo "<== $test passed in $((SECONDS - t0))s"
    else
      echo "<== $test FAILED after $((SECONDS - t0))s"
      failed+=("$test")
    fi
  done
  echo "fault suite: $(( ${#FAULTS[@]} + 1 - ${#failed[@]} ))/$(( ${#FAULTS[@]} + 1 )) passed in $((SECONDS - started))s"
  [ ${#failed[@]} -eq 0 ] || { echo "failed: ${failed[*]}"; return 1; }
}

if [ "${1:-}" = faults ]; then
  run_faults
  exit
fi

trap stop_cluster EXIT
case "${1:-}" in
  up)
    start_cluster
    echo "Ctrl-C stops the cluster" >&2
    while sleep 3600; do :; done
    ;;
  run)
    shift
    [ $# -gt 0 ] || { echo "usage: $0 run CMD..." >&2; exit 2; }
    start_cluster
    "$@"
    ;;
  *)
    echo "usage: $0 up | run CMD... | faults" >&2; exit 2
    ;;
esac
