#!/usr/bin/env bash
# The web UI's gate: lint, type check, unit tests, build (with bundle sizes), generated-client
# drift, then the browser tests (playwright-core driving Debian's chromium) against the release
# binary on a fresh SQLite data dir. Installs chromium with apt-get when missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
log() { printf '\n==> %s\n' "$*"; }
started=$(date +%s)

if ! command -v chromium >/dev/null 2>&1; then
  log "installing chromium (Debian)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

# The browser test of the MCP servers page runs the test MCP server (official Python SDK).
# shellcheck source=lib/mcp_venv.sh
source scripts/lib/mcp_venv.sh
log "MCP SDK venv"
ensure_mcp_venv
export TEST_MCP_PYTHON="$MCP_PYTHON"
# The plugins page's browser test runs LangBot's plugin runtime (langbot-plugin from PyPI).
# shellcheck source=lib/plugin_venv.sh
source scripts/lib/plugin_venv.sh
log "plugin runtime venv"
ensure_plugin_venv
export TEST_PLUGIN_PYTHON="$PLUGIN_PYTHON"

cd web
log "npm ci"
npm ci --no-audit --no-fund --cache "${NPM_CACHE_DIR:-/var/cache/langbot-npm}" --prefer-offline

log "eslint"
npm run --silent lint
log "tsc --noEmit"
npm run --silent typecheck
log "vitest (unit)"
npm test --silent
log "vite build"
npm run --silent build
node scripts/bundle-report.mjs
log "generated client drift"
npm run --silent gen:check

log "release binary"
(cd .. && cargo build --release --locked -p langbot)
log "browser tests (chromium)"
e2e_started=$(date +%s)
e2e_status=0
LANGBOT_BIN="$CARGO_TARGET_DIR/release/langbot" npm run --silent e2e || e2e_status=$?
log "browser tests took $(( $(date +%s) - e2e_started ))s"
node e2e/report.mjs
[[ $e2e_status -eq 0 ]] || exit "$e2e_status"

log "web checks finished in $(( $(date +%s) - started ))s"
