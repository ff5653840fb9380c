# What the fault tests share; source it from a script run inside `scripts/cluster.sh run`.
# Sets REPLICA_URLS / REPLICA_PIDS (arrays) and offers: a fake model + callback receiver
# (bench/fake_upstream.py), an owner with a provider, model, default pipeline and an
# http_bot bot, messages to it through the proxy, SQL on the cluster's PostgreSQL, timing.
# shellcheck shell=bash
set -euo pipefail
# shellcheck source=../../scripts/lib/services.sh
source scripts/lib/services.sh

fail() { echo "FAIL: $*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN {printf "%.2f", b - a}'; }
read -r -a REPLICA_URLS <<<"$CLUSTER_REPLICA_URLS"
read -r -a REPLICA_PIDS <<<"$CLUSTER_PIDS"
CALLBACKS="$CLUSTER_DIR/callbacks.jsonl"
FAKE_PIDS=()
# The fake model and any load loop a test started stop with it.
trap 'touch "$CLUSTER_DIR/stop-load" 2>/dev/null; for p in "${FAKE_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

sql() { psql "$TEST_PG_URL" -XAtq -v ON_ERROR_STOP=1 -c "$1"; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }
api() { # method path [body]: through the proxy as the owner
  curl -fsS -m 10 -X "$1" "$CLUSTER_URL/api/v1$2" -H "authorization: Bearer $TOKEN" \
    -H 'content-type: application/json' ${3:+-d "$3"}
}
code_of() { # url [curl args...]: the HTTP status, 000 when nothing answered
  local url="$1"; shift
  curl -s -m "${CODE_TIMEOUT:-3}" -o /dev/null -w '%{http_code}' "$@" "$url" || true
}

# The fake model and callback receiver on a free port; sets FAKE_URL.
start_fake_model() {
  local port; port="$(free_port)"
  FAKE_CALLBACK_LOG="$CALLBACKS" python3 bench/fake_upstream.py "$port" &
  FAKE_PIDS+=($!)
  FAKE_URL="http://127.0.0.1:$port"
  for _ in $(seq 100); do curl -fs -o /dev/null "$FAKE_URL/count" && return 0; sleep 0.05; done
  fail "the fake model did not start"
}

# Owner, provider (timeout $1 seconds, default 120), model, default pipeline, http_bot bot.
# Sets TOKEN, PROVIDER, MODEL, PIPELINE, BOT.
setup_bot() {
  local timeout="${1:-120}"
  curl -fsS -XPOST "$CLUSTER_URL/api/v1/user/init" -H 'content-type: application/json' \
    -d '{"user":"owner@example.com","password":"a-long-password"}' >/dev/null
  TOKEN=$(curl -fsS -XPOST "$CLUSTER_URL/api/v1/user/auth" -H 'content-type: application/json' \
    -d '{"user":"owner@example.com","password":"a-long-password"}' | json '["data"]["token"]')
  PROVIDER=$(api POST /provider/providers "{\"name\":\"fake\",\"requester\":\"openai-chat-completions\",\"base_url\":\"$FAKE_URL/v1\",\"api_keys\":[\"sk\"],\"config\":{\"timeout\":$timeout}}" | json '["data"]["uuid"]')
  MODEL=$(api POST /provider/models/llm "{\"name\":\"fake-model\",\"provider_uuid\":\"$PROVIDER\"}" | json '["data"]["uuid"]')
  PIPELINE=$(api POST /pipelines "{\"name\":\"cluster\",\"is_default\":true,\"config\":{\"ai\":{\"runner_config\":{\"local-agent\":{\"model\":{\"primary\":\"$MODEL\"}}}},\"safety\":{\"rate-limit\":{\"limitation\":100000}}}}" | json '["data"]["uuid"]')
  BOT=$(api POST /platform/bots "{\"name\":\"cluster bot\",\"adapter\":\"http_bot\",\"enable\":true,\"adapter_config\":{\"inbound_secret\":\"cluster-secret\",\"signature_required\":false,\"callback_url\":\"$FAKE_URL/cb\"}}" | json '["data"]["uuid"]')
}

# send SESSION TEXT [base url]: a message to the bot; prints "STATUS ACCEPTED_ID" (the id is
# "-" when the message was refused).
send() {
  local out status
  out=$(curl -s -m 10 -w '\n%{http_code}' -XPOST "${3:-$CLUSTER_URL}/bots/$BOT" -H 'content-type: application/json' \
    -d "{\"session_id\":\"$1\",\"message\":[{\"type\":\"Plain\",\"text\":\"$2\"}]}" || true)
  status="${out##*$'\n'}"
  if [ "$status" = 202 ]; then
    echo "$status $(printf '%s' "${out%$'\n'*}" | json '["data"]["accepted_message_id"]')"
  else
    echo "${status:-000} -"
  fi
}

# Waits (at most $1 seconds) until no execution is queued or running; fails otherwise.
wait_settled() {
  local deadline=$((SECONDS + $1))
  until [ "$(sql "select count(*) from monitoring_executions where status in ('queued','running')")" = 0 ]; do
    [ $SECONDS -lt $deadline ] || fail "executions still running after $1s: $(sql "select id, owner, status from monitoring_executions where status in ('queued','running')")"
    sleep 0.3
  done
}

# Callbacks the fake received answering message $1.
callbacks_for() { grep -c "\"reply_to\": *\"$1\"" "$CALLBACKS" || true; }

# The execution ledger's invariants, over the whole run: every user message belongs to exactly
# one execution and every execution to at most one user message; a completed execution has its
# user message and exactly one reply message; no record points at a missing execution.
check_ledger() {
  local bad
  bad=$(sql "select count(*) from monitoring_messages m left join monitoring_executions e on e.id = m.execution_id where e.id is null")
  [ "$bad" = 0 ] || fail "$bad messages recorded without their execution"
  bad=$(sql "select count(*) from monitoring_llm_calls c left join monitoring_executions e on e.id = c.execution_id where e.id is null")
  [ "$bad" = 0 ] || fail "$bad model calls recorded without their execution"
  bad=$(sql "select count(*) from (select execution_id from monitoring_messages where role = 'user' group by execution_id having count(*) <> 1) x")
  [ "$bad" = 0 ] || fail "$bad executions with more than one user message"
  bad=$(sql "select count(*) from monitoring_executions e where e.status = 'completed' and (
      (select count(*) from monitoring_messages m where m.execution_id = e.id and m.role = 'user') <> 1
   or (select count(*) from monitoring_messages m where m.execution_id = e.id and m.role = 'assistant') <> 1
   or (select count(*) from monitoring_llm_calls c where c.execution_id = e.id) < 1)")
  [ "$bad" = 0 ] || fail "$bad completed executions without all their records: $(sql "select id, owner from monitoring_executions e where e.status = 'completed' and (select count(*) from monitoring_messages m where m.execution_id = e.id) <> 2 limit 5")"
}
