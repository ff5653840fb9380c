#!/usr/bin/env bash
# Where the server's CPU goes under load: the release build serving GET /platform/bots
# (10 bots) with an API key, a session token, GET /system/info and GET /healthz, each sampled
# by `perf` while wrk drives it; prints the top symbols (self time) per endpoint.
#   bench/profile.sh [seconds-per-endpoint] [top-n]      (BENCH_BIN=… profiles another build)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH="${1:-8}"
TOP="${2:-25}"
command -v perf >/dev/null || { apt-get update -qq && apt-get install -y -qq linux-perf >/dev/null; }
# shellcheck source=lib.sh
source bench/lib.sh
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DIR"' EXIT
start_langbot
setup_owner
for i in $(seq 10); do create_bot "bot$i" >/dev/null; done

profile() { # name, wrk args...
  local name="$1"; shift
  "${ON_LOAD_CPU[@]}" wrk -t1 -c32 -d"$((SECONDS_EACH + 2))s" "$@" >/dev/null &
  local load=$!
  sleep 1
  # Its threads by id: `-p` on this pid sampled only the idle main thread.
  perf record -q -F 1999 -g -t "$(ls /proc/$PID/task | paste -sd,)" -o "$DIR/perf.data" -- sleep "$SECONDS_EACH" 2>/dev/null
  wait "$load"
  echo "== $name: top $TOP symbols by self time"
  perf report -i "$DIR/perf.data" --stdio --no-children --sort symbol --percent-limit 0.5 2>/dev/null \
    | grep -E "^ +[0-9.]+%" | sed -E "s/ +- +- *$//" | awk -v n="$TOP" 'NR <= n'  # reads it all: no SIGPIPE under pipefail
}
profile "GET /platform/bots (API key)" -H "X-API-Key: $KEY" "$BASE/api/v1/platform/bots"
profile "GET /platform/bots (session)" -H "Authorization: Bearer $TOKEN" "$BASE/api/v1/platform/bots"
profile "GET /system/info" "$BASE/api/v1/system/info"
profile "GET /healthz" "$BASE/healthz"
