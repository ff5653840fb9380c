# What the benchmarks share: a release build, wrk, the fake upstream, a server on a free port,
# and an owner with an API key and a provider pointing at the fake upstream.
# Source from the repository root; the caller's EXIT trap kills "${PIDS[@]}".
# shellcheck shell=bash

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }
# BENCH_BIN runs another build (e.g. an older commit's) against the same script, and
# BENCH_TWIN the bare twin built with it (a twin built with other compiler settings would
# move the ratios by itself).
if [ -z "${BENCH_BIN:-}" ]; then cargo build --release --locked -p langbot >/dev/null; fi
BIN="${BENCH_BIN:-$CARGO_TARGET_DIR/release/langbot}"
build_twin() {
  if [ -z "${BENCH_TWIN:-}" ]; then cargo build --release --locked -p langbot-bench --bin bare-twin >/dev/null; fi
  TWIN_BIN="${BENCH_TWIN:-$CARGO_TARGET_DIR/release/bare-twin}"
}
# With two cores or more the server gets one core and the load generator another, so a
# figure does not depend on how the scheduler shares them (BENCH_PIN=0 turns this off).
if [ "${BENCH_PIN:-1}" = 1 ] && [ "$(nproc)" -ge 2 ]; then
  SERVER_CPU="${BENCH_SERVER_CPU:-0}"; LOAD_CPU="${BENCH_LOAD_CPU:-1}"
  ON_SERVER_CPU=(taskset -c "$SERVER_CPU"); ON_LOAD_CPU=(taskset -c "$LOAD_CPU")
else
  ON_SERVER_CPU=(); ON_LOAD_CPU=()
fi
# shellcheck source=../scripts/lib/services.sh
source scripts/lib/services.sh
DIR="$(mktemp -d /tmp/langbot-bench.XXXXXX)"
PIDS=()
PORT="$(free_port)"; UP="$(free_port)"
BASE="http://127.0.0.1:$PORT"

json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
api() { curl -fs -X "$1" "$BASE/api/v1$2" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' ${3:+-d "$3"}; }

# Starts the fake upstream and the server (extra environment from the caller), waits for
# readiness and sets PID and ready_ms.
start_langbot() {
  python3 bench/fake_upstream.py "$UP" & PIDS+=($!)
  local start_ns; start_ns=$(date +%s%N)
  LANGBOT_DATA_DIR="$DIR" LANGBOT_HTTP_ADDR="127.0.0.1:$PORT" LANGBOT_LOG=warn "${ON_SERVER_CPU[@]}" "$BIN" serve & PID=$!; PIDS+=($PID)
  until curl -fs "$BASE/readyz" >/dev/null 2>&1; do sleep 0.005; done
  ready_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
}

# CPU time (user + system, in clock ticks) a process has used so far.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# Sets TOKEN (owner session), KEY (API key) and PROVIDER (the fake upstream).
setup_owner() {
  curl -fs -XPOST "$BASE/api/v1/user/init" -H 'content-type: application/json' -d '{"user":"bench@example.com","password":"bench-password"}' >/dev/null
  TOKEN=$(curl -fs -XPOST "$BASE/api/v1/user/auth" -H 'content-type: application/json' -d '{"user":"bench@example.com","password":"bench-password"}' | json '["data"]["token"]')
  KEY=$(api POST /apikeys '{"name":"bench"}' | json '["data"]["key"]["key"]')
  PROVIDER=$(api POST /provider/providers "{\"name\":\"fake\",\"requester\":\"openai-chat-completions\",\"base_url\":\"http://127.0.0.1:$UP/v1\",\"api_keys\":[\"sk\"]}" | json '["data"]["uuid"]')
}

# An enabled http_bot bot named $1 that skips signatures and calls back the fake upstream.
create_bot() {
  api POST /platform/bots "{\"name\":\"$1\",\"adapter\":\"http_bot\",\"enable\":true,\"adapter_config\":{\"inbound_secret\":\"bench-secret\",\"signature_required\":false,\"callback_url\":\"http://127.0.0.1:$UP/cb\"}}" | json '["data"]["uuid"]'
}
