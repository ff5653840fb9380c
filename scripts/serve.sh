#!/usr/bin/env bash
# One command from a fresh clone to the server with its web UI: builds web/dist when it is
# missing or older than the UI sources, then runs the release server (arguments go to
# `langbot serve`). Needs Node.js ≥ 20.19 with npm, and the Rust toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."

stale() {
  [[ ! -f web/dist/index.html ]] && return 0
  [[ -n "$(find web/src web/index.html web/package-lock.json web/vite.config.ts web/public \
    -newer web/dist/index.html -print -quit)" ]]
}

if stale; then
  echo "==> building the web UI (web/dist)"
  if [[ ! -d web/node_modules ]] || [[ web/package-lock.json -nt web/node_modules/.package-lock.json ]]; then
    npm --prefix web ci --no-audit --no-fund
  fi
  npm --prefix web run build
fi

exec cargo run --release --locked -p langbot -- serve "$@"
