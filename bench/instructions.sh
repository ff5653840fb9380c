#!/usr/bin/env bash
# Instructions per request (valgrind's callgrind), which unlike req/s do not move with this
# machine's neighbours: GET /healthz and GET /api/v1/system/info on the server, GET /healthz on
# the bare twin, each over one keep-alive connection after a warm-up.
#   bench/instructions.sh [requests]   (BENCH_BIN=… counts another build, BENCH_TWIN=… its twin)
# BENCH_TOP=K also prints each path's K costliest functions (self cost, per request) on stderr.
# memset/memcpy count one instruction per byte moved by `rep` (glibc's large copies), so the
# totals overstate those; compare builds with each other, not with cycles.
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-2000}"
command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
# shellcheck source=lib.sh
source bench/lib.sh
build_twin
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$DIR"' EXIT

# Sends $2 GETs of path $3 to 127.0.0.1:$1 on one connection, as wrk does (Host only).
drive() {
  python3 - "$@" <<'PY'
import socket, sys
port, n, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
req = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
s = socket.create_connection(("127.0.0.1", port))
buf = b""
for _ in range(n):
    s.sendall(req)
    while True:
        end = buf.find(b"\r\n\r\n")
        if end >= 0:
            head = buf[:end].decode()
            length = next((int(l.split(":", 1)[1]) for l in head.split("\r\n")[1:]
                           if l.lower().startswith("content-length:")), 0)
            if len(buf) >= end + 4 + length:
                if not head.startswith("HTTP/1.1 200"):
                    sys.exit(f"{path}: {head.splitlines()[0]}")
                buf = buf[end + 4 + length:]
                break
        buf += s.recv(65536)
PY
}

# Counts what process $1 (under callgrind, output $2) executes for N requests of path $4 on port $3.
count() {
  local pid="$1" out="$2" port="$3" path="$4"
  drive "$port" 500 "$path"
  callgrind_control -i on "$pid" >/dev/null 2>&1
  drive "$port" "$N" "$path"
  callgrind_control -i off "$pid" >/dev/null 2>&1
  callgrind_control -d "$pid" >/dev/null 2>&1
  sleep 0.5
  local total
  total=$(callgrind_annotate "$out".* 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
  if [ -n "${BENCH_TOP:-}" ]; then
    echo "top $BENCH_TOP of $(basename "$out" .cg) $path (instructions per request, self):" >&2
    callgrind_annotate --threshold=100 "$out".* 2>/dev/null | awk -v n="$N" -v k="$BENCH_TOP" '
      /PROGRAM TOTALS/ { next }
      match($0, /^ *[0-9,]+ \( *[0-9.]+%\) +/) && shown < k {
        c = $1; gsub(",", "", c); f = substr($0, RLENGTH + 1)
        sub(/ \[[^]]*\]$/, "", f); sub(/^[^ :]*:/, "", f)
        printf "  %7.0f  %s\n", c / n, substr(f, 1, 110); shown++ }' >&2
  fi
  rm -f "$out".*
  echo "$total"
}

# The server under callgrind (its allocator settings given, so it does not re-execute itself).
SPORT="$(free_port)"
LANGBOT_DATA_DIR="$DIR" LANGBOT_HTTP_ADDR="127.0.0.1:$SPORT" LANGBOT_LOG=warn MALLOC_ARENA_MAX=4 \
  MALLOC_MMAP_THRESHOLD_=262144 valgrind --tool=callgrind --instr-atstart=no \
  --callgrind-out-file="$DIR/server.cg" "$BIN" serve >/dev/null 2>&1 & SERVER=$!; PIDS+=($SERVER)
until curl -fs "http://127.0.0.1:$SPORT/readyz" >/dev/null 2>&1; do sleep 0.2; done
curl -fs -XPOST "http://127.0.0.1:$SPORT/api/v1/user/init" -H 'content-type: application/json' \
  -d '{"user":"bench@example.com","password":"bench-password"}' >/dev/null
health=$(count "$SERVER" "$DIR/server.cg" "$SPORT" /healthz)
info=$(count "$SERVER" "$DIR/server.cg" "$SPORT" /api/v1/system/info)

TPORT="$(free_port)"
BARE_ADDR="127.0.0.1:$TPORT" BARE_DATABASE_URL="sqlite://$DIR/langbot.db" BARE_PUBLIC_URL=http://x \
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$DIR/twin.cg" \
  "$TWIN_BIN" >/dev/null 2>&1 & TWIN=$!; PIDS+=($TWIN)
until curl -fs "http://127.0.0.1:$TPORT/healthz" >/dev/null 2>&1; do sleep 0.2; done
bare=$(count "$TWIN" "$DIR/twin.cg" "$TPORT" /healthz)

awk -v n="$N" -v h="$health" -v i="$info" -v b="$bare" 'BEGIN {
  printf "instructions per request (%d requests each)\n", n
  printf "  bare twin GET /healthz      %7.0f\n", b / n
  printf "  GET /healthz                %7.0f   bare / server %.2f\n", h / n, b / h
  printf "  GET /api/v1/system/info     %7.0f   healthz / info %.2f\n", i / n, h / i
}'
