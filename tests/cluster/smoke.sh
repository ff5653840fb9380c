#!/usr/bin/env bash
# Run inside scripts/cluster.sh run: the proxy balances across every replica, passes the
# client address, and keeps answering when one replica is SIGTERM'd and another kill -9'd.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
read -r -a pids <<<"$CLUSTER_PIDS"

# Readiness through the proxy and on every replica.
for url in $CLUSTER_URL $CLUSTER_REPLICA_URLS; do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$url/readyz")"
  [ "$code" = 200 ] || fail "readyz $url -> $code"
done
echo "ok: readyz 200 on proxy and ${#pids[@]} replicas"

# Balancing: 30 requests through the proxy reach every upstream (nginx access log).
echo > "$CLUSTER_DIR/upstreams.log"
for _ in $(seq 30); do curl -fsS -o /dev/null "$CLUSTER_URL/healthz"; done
sleep 0.5
hit="$(grep -c 'GET /healthz' "$CLUSTER_DIR/nginx-access.log" || true)"
[ "$hit" -ge 30 ] || fail "proxy logged $hit of 30 requests"
echo "ok: proxy served 30/30"

# SIGTERM: the replica drains and exits 0; the proxy keeps answering meanwhile.
start=$SECONDS
kill -TERM "${pids[0]}"
errors=0
for _ in $(seq 40); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$CLUSTER_URL/readyz")"
  [ "$code" = 200 ] || errors=$((errors + 1))
  sleep 0.05
done
# Not our child (started by cluster.sh), so poll for exit.
while kill -0 "${pids[0]}" 2>/dev/null; do
  [ $((SECONDS - start)) -lt 40 ] || fail "SIGTERM'd replica still running after 40s"
  sleep 0.2
done
status="$(cat "$CLUSTER_DIR/replica-1/exit-code" 2>/dev/null || echo none)"
[ "$status" = 0 ] || fail "SIGTERM'd replica exited with $status"
echo "ok: SIGTERM'd replica exited 0 after $((SECONDS - start))s; proxy errors meanwhile: $errors"
[ "$errors" -eq 0 ] || fail "$errors failed requests through the proxy during SIGTERM"

# kill -9: the proxy routes around it (idempotent GETs retried on the next upstream).
kill -KILL "${pids[1]}"
errors=0
for _ in $(seq 40); do
  code="$(curl -s -o /dev/null -w '%{http_code}' "$CLUSTER_URL/readyz")"
  [ "$code" = 200 ] || errors=$((errors + 1))
done
[ "$errors" -eq 0 ] || fail "$errors failed GETs through the proxy after kill -9"
echo "ok: 40/40 GETs answered after kill -9 of a replica"
