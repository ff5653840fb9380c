#!/usr/bin/env bash
# Monitoring at scale: one Workspace with ROWS messages and ROWS LLM calls (ROWS/2 executions,
# each a user message, an assistant reply and two LLM calls; 10% on a second bot, 5% failed,
# one every 30 s back in time), then wrk latency of the executions list (first page and a
# filtered page) and of an execution detail, against a release build on loopback.
#   bench/monitoring.sh sqlite|postgres [rows] [duration-seconds]
# The rows are cloned in SQL from two real turns, so they have exactly the shape the runtime
# writes. On SQLite the database's triggers keep the hourly rollups as the rows are inserted; on
# PostgreSQL they are disabled for the load (each row's trigger would leave a dead rollup row
# version behind) and `langbot rebuild-rollups` computes the rollups afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND="${1:-sqlite}"
ROWS="${2:-1000000}"
DURATION="${3:-10}"
EXECS=$((ROWS / 2))
# shellcheck source=lib.sh
source bench/lib.sh
# BENCH_KEEP=1 keeps the SQLite dataset for inspection.
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; stop_services; [ -n "${BENCH_KEEP:-}" ] && echo "kept $DIR" || rm -rf "$DIR"' EXIT

# shellcheck source=dataset.sh
source bench/dataset.sh


run() { # name, url
  local out; out=$(wrk -t1 -c4 -d"${DURATION}s" --latency -H "X-API-Key: $KEY" "$2")
  printf '%-52s %8s req/s   p50 %8s   p99 %8s  %s\n' "$1" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1=="50%" {print $2}' <<<"$out")" \
    "$(awk '$1=="99%" {print $2}' <<<"$out")" "$(grep -E "Non-2xx|Socket errors" <<<"$out" | tr '\n' ' ' || true)"
}
MID=$(printf '%08x-0001-4000-8000-000000000000' $((EXECS / 2)))
M="$BASE/api/v1/monitoring"
check() { curl -fs -H "X-API-Key: $KEY" "$1" | python3 -c "import json,sys; d=json.load(sys.stdin)['data']; print('   ', $2)"; }
echo "LangBot monitoring bench: $BACKEND, $ROWS messages + $ROWS LLM calls, wrk -t1 -c4 -d${DURATION}s"
check "$M/overview" "'messages', d['total_messages'], 'llm calls', d['llm_calls']"
check "$M/executions?limit=50" "'total', d['total'], 'summary', d['summary']['executions']"
run "GET executions (first page of 50)" "$M/executions?limit=50"
FILTER="bot_ids=$BOT2&statuses=failed&mode=real&limit=50&offset=50"
check "$M/executions?$FILTER" "'total', d['total'], 'items', len(d['items'])"
run "GET executions (bot + status + mode, 2nd page)" "$M/executions?$FILTER"
check "$M/executions/auto/$MID" "'execution', d['row']['id'], 'status', d['row']['status']"
run "GET executions/auto/{id} (detail)" "$M/executions/auto/$MID"
run "GET messages (first page of 50)" "$M/messages?limit=50"
run "GET llm-calls (bot, first page of 50)" "$M/llm-calls?bot_ids=$BOT2&limit=50"
run "GET overview" "$M/overview"
run "GET token-statistics (last 30 days)" "$M/token-statistics?start_time=$(date -u -d '-30 days' +%Y-%m-%dT%H:%M:%SZ)"
run "GET /healthz (baseline)" "$BASE/healthz"
