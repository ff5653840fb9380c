#!/usr/bin/env bash
# Runs the whole test suite on both storage back ends:
#   pass 1: SQLite + in-process session store (every test, unit tests included)
#   pass 2: PostgreSQL + Redis (the black-box suite again)
#   then the web UI's checks and browser tests (scripts/web-check.sh; LANGBOT_SKIP_WEB=1 skips
#   them, as .ci/run does to run them as a step of their own)
# PostgreSQL and Redis are started on private ports in a temp dir and stopped afterwards;
# when missing they are installed with apt-get (as root).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
NEXTEST_ARGS=(--no-fail-fast --failure-output final)

log() { printf '\n==> %s\n' "$*"; }

# shellcheck source=lib/services.sh
source scripts/lib/services.sh
# shellcheck source=lib/mcp_venv.sh
source scripts/lib/mcp_venv.sh
# shellcheck source=lib/plugin_venv.sh
source scripts/lib/plugin_venv.sh
trap stop_services EXIT

ensure_services
# The official MCP SDK: the client test, and the MCP server the tool tests connect to.
ensure_mcp_venv
export TEST_MCP_PYTHON="$MCP_PYTHON"
# LangBot's plugin runtime (langbot-plugin from PyPI): the plugin host tests run it.
ensure_plugin_venv
export TEST_PLUGIN_PYTHON="$PLUGIN_PYTHON"
log "building"
cargo build --workspace --all-targets
start_services

log "pass 1: SQLite + in-process session store"
status=0
cargo nextest run --workspace "${NEXTEST_ARGS[@]}" || status=1

log "the official MCP Python SDK against a running server"
scripts/mcp-client-test.sh || status=1

log "pass 2: PostgreSQL + Redis"
TEST_DATABASE_URL="$TEST_PG_URL" TEST_REDIS_URL="$TEST_REDIS_SERVER_URL" \
  cargo nextest run -p api-tests "${NEXTEST_ARGS[@]}" || status=1

if [[ "${LANGBOT_SKIP_WEB:-}" != 1 ]]; then
  log "the web UI: lint, types, unit and browser tests (scripts/web-check.sh)"
  scripts/web-check.sh || status=1
fi

exit $status
