#!/usr/bin/env bash
# Runs the official MCP Python SDK (tests/mcp_client/official_client.py) against a real
# `langbot serve` (SPEC §12). Builds nothing: run `cargo build -p langbot` first.
#
#   CARGO_TARGET_DIR  where the debug binary is (default /var/cache/langbot-target)
#   MCP_VENV          the Python venv with mcp==$MCP_VERSION (default /var/cache/langbot-mcp-venv;
#                     created, or the package reinstalled, when missing or another version)
#
# The server runs on a free local port with a temp data dir (SQLite, in-process session
# store); it is stopped afterwards. The exit status is the client script's.
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
BIN="$CARGO_TARGET_DIR/debug/langbot"
CLIENT="tests/mcp_client/official_client.py"

log() { printf '==> %s\n' "$*"; }

if [ ! -x "$BIN" ]; then
  echo "missing $BIN: run \`CARGO_TARGET_DIR=$CARGO_TARGET_DIR cargo build -p langbot\` first" >&2
  exit 1
fi

# shellcheck source=lib/mcp_venv.sh
source scripts/lib/mcp_venv.sh
ensure_mcp_venv
VENV="$MCP_VENV"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# `json_field FIELD.PATH` reads JSON on stdin and prints one field (empty when absent).
json_field() {
  python3 -c '
import json, sys
value = json.load(sys.stdin)
for part in sys.argv[1].split("."):
    value = value.get(part) if isinstance(value, dict) else None
print("" if value is None else value)
' "$1"
}

DATA_DIR="$(mktemp -d)"
PORT="$(free_port)"
BASE="http://127.0.0.1:$PORT"
SERVER_PID=""

cleanup() {
  if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT

log "starting $BIN serve on $BASE"
env -u LANGBOT_CONFIG -u LANGBOT_DATABASE_URL -u LANGBOT_REDIS_URL -u LANGBOT_REDIS_PREFIX \
  -u LANGBOT_GLOBAL_API_KEY -u LANGBOT_MULTI_WORKSPACE -u LANGBOT_BODY_LIMIT \
  LANGBOT_DATA_DIR="$DATA_DIR" LANGBOT_HTTP_ADDR="127.0.0.1:$PORT" LANGBOT_PUBLIC_URL="$BASE" \
  "$BIN" serve >"$DATA_DIR/server.log" 2>&1 &
SERVER_PID=$!

ready=""
for _ in $(seq 1 300); do
  if curl -fsS -o /dev/null "$BASE/readyz" 2>/dev/null; then
    ready=1
    break
  fi
  if ! kill -0 "$SERVER_PID" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
if [ -z "$ready" ]; then
  echo "the server did not become ready; its log:" >&2
  cat "$DATA_DIR/server.log" >&2 || true
  exit 1
fi

post() { # post PATH JSON [TOKEN]
  local auth=()
  if [ -n "${3:-}" ]; then auth=(-H "Authorization: Bearer $3"); fi
  curl -sS -X POST "$BASE$1" -H 'content-type: application/json' "${auth[@]}" --data "$2"
}

EMAIL="owner@example.com"
PASSWORD="mcp-client-test-password"
post /api/v1/user/init "{\"user\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" >/dev/null
TOKEN="$(post /api/v1/user/auth "{\"user\":\"$EMAIL\",\"password\":\"$PASSWORD\"}" | json_field data.token)"
if [ -z "$TOKEN" ]; then
  echo "login failed" >&2
  exit 1
fi
OWNER_KEY="$(post /api/v1/apikeys '{"name":"mcp client (owner)"}' "$TOKEN" | json_field data.key.key)"
VIEW_KEY="$(post /api/v1/apikeys '{"name":"mcp client (view)","scopes":["resource.view","workspace.view"]}' "$TOKEN" |
  json_field data.key.key)"
if [ -z "$OWNER_KEY" ] || [ -z "$VIEW_KEY" ]; then
  echo "creating the API keys failed" >&2
  exit 1
fi

log "running $CLIENT with mcp==$MCP_VERSION"
set +e
timeout 120 "$VENV/bin/python" "$CLIENT" "$BASE/mcp" "$OWNER_KEY" "$VIEW_KEY"
status=$?
set -e
if [ "$status" -ne 0 ]; then
  echo "the MCP client failed (status $status); server log tail:" >&2
  tail -n 50 "$DATA_DIR/server.log" >&2 || true
fi
exit "$status"
