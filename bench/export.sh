#!/usr/bin/env bash
# The monitoring export at scale: the dataset of bench/dataset.sh, then one download of every
# message (ROWS of them) as CSV and as NDJSON, with its wall time, size, and the server's
# resident memory sampled every 20 ms while it streams (peak, and the rise over idle).
#   bench/export.sh sqlite|postgres [rows]   (BENCH_BIN=… measures another build; CSV_ONLY=1 skips NDJSON)
set -euo pipefail
cd "$(dirname "$0")/.."
BACKEND="${1:-sqlite}"
ROWS="${2:-1000000}"
# shellcheck source=lib.sh
source bench/lib.sh
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; stop_services; rm -rf "$DIR"' EXIT
# shellcheck source=dataset.sh
source bench/dataset.sh

rss_kib() { awk '/^VmRSS/ {print $2}' "/proc/$PID/status"; }
export_once() { # format query
  local idle peak=0 started out="$DIR/export.$1"
  idle=$(rss_kib)
  started=$(date +%s%N)
  curl -fs -H "X-API-Key: $KEY" "$BASE/api/v1/monitoring/export?$2" -o "$out" & local curl_pid=$!
  while kill -0 "$curl_pid" 2>/dev/null; do
    local now; now=$(rss_kib); (( now > peak )) && peak=$now
    sleep 0.02
  done
  wait "$curl_pid"
  local ms=$(( ($(date +%s%N) - started) / 1000000 ))
  printf '%-8s %9s lines %7s MiB in %6.1f s   RSS idle %5.1f MiB, peak %5.1f MiB (+%.1f)\n' "$1" \
    "$(wc -l < "$out")" "$(( $(stat -c %s "$out") / 1048576 ))" "$(echo "$ms / 1000" | bc -l)" \
    "$(echo "$idle / 1024" | bc -l)" "$(echo "$peak / 1024" | bc -l)" "$(echo "($peak - $idle) / 1024" | bc -l)"
  rm -f "$out"
}
echo "LangBot export bench: $BACKEND, $ROWS messages ($BIN)"
export_once csv "type=messages${EXPORT_QUERY:-}"
if [ -z "${CSV_ONLY:-}" ]; then export_once ndjson "type=messages&format=ndjson"; fi
echo "VmHWM over the whole run (dataset load included): $(awk '/^VmHWM/ {print $2/1024 " MiB"}' "/proc/$PID/status")"
