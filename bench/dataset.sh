# The monitoring dataset the benchmarks share: one Workspace with ROWS messages and ROWS LLM
# calls (ROWS/2 executions, each a user message, an assistant reply and two LLM calls; 10% on
# a second bot, 5% failed, one every 30 s back in time), cloned in SQL from two real turns so
# they have exactly the shape the runtime writes. On SQLite the database's triggers keep the
# hourly rollups as the rows are inserted; on PostgreSQL they are disabled for the load (each
# row's trigger would leave a dead rollup row version behind) and `langbot rebuild-rollups`
# computes the rollups afterwards.
# Source after bench/lib.sh with BACKEND (sqlite|postgres) and ROWS set; sets EXECS, BOT1, BOT2
# and leaves the server running.
# shellcheck shell=bash
EXECS=$((ROWS / 2))
case "$BACKEND" in
  sqlite)
    export LANGBOT_DATABASE_URL="sqlite://$DIR/langbot.db?mode=rwc"
    sql() { sqlite3 -bail "$DIR/langbot.db"; } ;;
  postgres)
    ensure_services; start_services
    export LANGBOT_DATABASE_URL="$TEST_PG_URL"
    sql() { psql -q -v ON_ERROR_STOP=1 "$TEST_PG_URL" >/dev/null; } ;;
  *) echo "usage: $0 sqlite|postgres [rows] [duration]" >&2; exit 2 ;;
esac

# Retention above the dataset's span, so the background expiry does not delete it mid-run.
export LANGBOT_MONITORING_RETENTION=400d
start_langbot
setup_owner
MODEL=$(api POST /provider/models/llm "{\"name\":\"m\",\"provider_uuid\":\"$PROVIDER\"}" | json '["data"]["uuid"]')
api POST /pipelines "{\"name\":\"bench\",\"is_default\":true,\"config\":{\"ai\":{\"runner_config\":{\"local-agent\":{\"model\":{\"primary\":\"$MODEL\"}}}}}}" >/dev/null
BOT1=$(create_bot one); BOT2=$(create_bot two)
for b in "$BOT1" "$BOT2"; do
  curl -fs -XPOST "$BASE/bots/$b/sync" -H 'content-type: application/json' \
    -d '{"session_id":"seed","message":[{"type":"Plain","text":"hello there"}]}' >/dev/null
done

# The i-th clone: id = 8-4-4-4-12 hex built from i and a tag, time = the seed's minus 30 s * i.
echo "generating $EXECS executions, $ROWS messages, $ROWS LLM calls ($BACKEND)…"
gen_start=$(date +%s)
if [ "$BACKEND" = sqlite ]; then
  ID="printf('%08x-%04x-4000-8000-000000000000', i, TAG)"
  # The stored form, e.g. 2026-11-30T06:50:59.644238+00:00 (whole-second shifts keep the fraction).
  AT="strftime('%Y-%m-%dT%H:%M:%S', COL, '-' || (i * 30) || ' seconds') || substr(COL, 20, 7) || '+00:00'"
  SERIES="WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $EXECS)"
  FROM="FROM n, SRC"
else
  ID="lpad(to_hex(i), 8, '0') || '-' || lpad(to_hex(TAG), 4, '0') || '-4000-8000-000000000000'"
  AT="COL - make_interval(secs => i * 30)"
  SERIES=""
  FROM="FROM generate_series(1, $EXECS) AS n(i), SRC"
fi
id() { echo "${ID//TAG/$1}"; }
at() { echo "${AT//COL/$1}"; }
BOT_OF="CASE WHEN i % 10 = 0 THEN '$BOT2' ELSE '$BOT1' END"
STATUS_OF="CASE WHEN i % 20 = 0 THEN 'failed' ELSE s.status END"
SEED_EXEC="(SELECT * FROM monitoring_executions WHERE bot_id = '$BOT1' LIMIT 1) s"
TABLES="monitoring_executions monitoring_messages monitoring_llm_calls"
if [ "$BACKEND" = postgres ]; then
  # No triggers: the execution's totals are its two LLM-call clones' (the seed has one).
  TOTALS="2 * s.llm_calls, 2 * s.input_tokens, 2 * s.output_tokens, 2 * s.total_tokens"
  for t in $TABLES; do echo "ALTER TABLE $t DISABLE TRIGGER USER;"; done | sql
else
  TOTALS="0, 0, 0, 0"
fi
{
  echo "BEGIN;"
  # With triggers, its LLM calls (two clones of the seed's one) add to its totals as inserted.
  echo "INSERT INTO monitoring_executions (id, workspace_uuid, source, mode, status, bot_id, bot_name, pipeline_id, pipeline_name, session_id, event_id, message_id, progress_event, error, owner, lease_expires_at, started_at, finished_at, duration_ms, llm_calls, input_tokens, output_tokens, total_tokens, input_preview)
    $SERIES SELECT $(id 1), s.workspace_uuid, s.source, s.mode, $STATUS_OF, $BOT_OF, s.bot_name, s.pipeline_id, s.pipeline_name, 'sess-' || (i % 5000), NULL, $(id 2), s.progress_event, s.error, NULL, NULL, $(at s.started_at), $(at s.finished_at), s.duration_ms, $TOTALS, s.input_preview ${FROM//SRC/$SEED_EXEC};"
  for role in user assistant; do
    tag=$([ $role = user ] && echo 2 || echo 3)
    src="(SELECT * FROM monitoring_messages WHERE bot_id = '$BOT1' AND role = '$role' LIMIT 1) s"
    echo "INSERT INTO monitoring_messages (id, workspace_uuid, execution_id, timestamp, bot_id, bot_name, pipeline_id, pipeline_name, session_id, role, message_content, status, level, mode, platform, user_id, user_name, runner_name, event_id, parent_message_id)
      $SERIES SELECT $(id $tag), s.workspace_uuid, $(id 1), $(at s.timestamp), $BOT_OF, s.bot_name, s.pipeline_id, s.pipeline_name, 'sess-' || (i % 5000), s.role, s.message_content, s.status, s.level, s.mode, s.platform, s.user_id, s.user_name, s.runner_name, NULL, $([ $role = user ] && echo NULL || id 2)
      ${FROM//SRC/$src};"
  done
  src="(SELECT * FROM monitoring_llm_calls WHERE bot_id = '$BOT1' LIMIT 1) s"
  for tag in 4 5; do
    echo "INSERT INTO monitoring_llm_calls (id, workspace_uuid, execution_id, timestamp, bot_id, bot_name, pipeline_id, pipeline_name, session_id, model_name, model_uuid, input_tokens, output_tokens, total_tokens, duration, status, mode, error_message, message_id, details)
      $SERIES SELECT $(id $tag), s.workspace_uuid, $(id 1), $(at s.timestamp), $BOT_OF, s.bot_name, s.pipeline_id, s.pipeline_name, 'sess-' || (i % 5000), s.model_name, s.model_uuid, s.input_tokens, s.output_tokens, s.total_tokens, s.duration, s.status, s.mode, s.error_message, $(id 2), s.details
      ${FROM//SRC/$src};"
  done
  echo "COMMIT;"
  # Fresh statistics, and on PostgreSQL a visibility map so that reads stay index-only.
  if [ "$BACKEND" = postgres ]; then echo "VACUUM ANALYZE;"; else echo "ANALYZE;"; fi
} | sql
if [ "$BACKEND" = postgres ]; then
  for t in $TABLES; do echo "ALTER TABLE $t ENABLE TRIGGER USER;"; done | sql
  LANGBOT_DATA_DIR="$DIR" LANGBOT_LOG=warn "$BIN" rebuild-rollups
  echo "generated in $(( $(date +%s) - gen_start )) s (the rollups rebuilt after the load)"
else
  echo "generated in $(( $(date +%s) - gen_start )) s (the rollups kept by the database's triggers)"
fi
