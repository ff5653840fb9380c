#!/usr/bin/env bash
# Inbound messages per second through the whole path, per adapter (release build, loopback,
# an instantly answering fake model, the test suite's platform fakes built optimized):
#   bench/adapters.sh [messages] [adapter …]
# adapters: telegram discord slack-socket slack-events onebot-v11 lark web_page_bot (default:
# all). On SQLite unless LANGBOT_DATABASE_URL names another database.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-/var/cache/langbot-target}"
cargo build --release --locked -p langbot -p langbot-bench >/dev/null
exec "$CARGO_TARGET_DIR/release/adapters-bench" "$CARGO_TARGET_DIR/release/langbot" "$@"
