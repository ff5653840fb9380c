#!/usr/bin/env bash
# Benchmark: an authenticated call (GET /api/v1/system/context with an API key) against the
# trivial GET /healthz, in the same run, on a release build over loopback with wrk.
# Also reports the time to readiness and the peak resident memory under load.
#   bench/auth.sh [duration-seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-32}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }

cargo build --release --locked -p langbot >/dev/null
BIN="$CARGO_TARGET_DIR/release/langbot"
DIR="$(mktemp -d /tmp/langbot-bench.XXXXXX)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:$PORT"
trap 'kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; rm -rf "$DIR"' EXIT

start_ns=$(date +%s%N)
LANGBOT_DATA_DIR="$DIR" LANGBOT_HTTP_ADDR="127.0.0.1:$PORT" LANGBOT_LOG=warn "$BIN" serve &
PID=$!
until curl -fs "$BASE/readyz" >/dev/null 2>&1; do sleep 0.005; done
ready_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
curl -fs -XPOST "$BASE/api/v1/user/init" -H 'content-type: application/json' \
  -d '{"user":"bench@example.com","password":"bench-password"}' >/dev/null
TOKEN=$(curl -fs -XPOST "$BASE/api/v1/user/auth" -H 'content-type: application/json' \
  -d '{"user":"bench@example.com","password":"bench-password"}' | json '["data"]["token"]')
KEY=$(curl -fs -XPOST "$BASE/api/v1/apikeys" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -d '{"name":"bench"}' | json '["data"]["key"]["key"]')
curl -fs "$BASE/api/v1/system/context" -H "x-api-key: $KEY" >/dev/null

run() { # name, wrk args...
  local name="$1"; shift
  local out; out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "$@")
  local rps p99
  rps=$(awk '/Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1=="99%" {print $2}' <<<"$out")
  local errors; errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" || true)
  printf '%-28s %12s req/s   p99 %8s   %s\n' "$name" "$rps" "$p99" "$errors" >&2
  echo "$rps"
}

echo "LangBot bench: wrk -t2 -c$CONNECTIONS -d${DURATION}s, release build, SQLite + in-process store" >&2
health=$(run "GET /healthz" "$BASE/healthz")
ctx=$(run "GET /system/context (key)" -H "X-API-Key: $KEY" "$BASE/api/v1/system/context")
rss_kib=$(awk '/VmHWM/ {print $2}' "/proc/$PID/status")
python3 - "$health" "$ctx" "$ready_ms" "$rss_kib" <<'PY' >&2
import sys
health, ctx, ready_ms, rss = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"authenticated/healthz throughput ratio: {ctx/health:.2f}")
print(f"ready in {ready_ms} ms; peak RSS {rss/1024:.1f} MiB")
PY
