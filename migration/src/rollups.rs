//! The monitoring rollups recomputed from the records: used by the migration that creates
//! them and by `langbot monitoring rebuild-rollups` (repair after hand edits, bulk loads).

use sea_orm_migration::sea_orm::DbBackend;

pub const TABLE: &str = "monitoring_rollups";

/// The hour (since the Unix epoch, UTC) of a timestamp column, as SQL.
pub fn hour(backend: DbBackend, column: &str) -> String {
    match backend {
        DbBackend::Postgres => {
            format!("CAST(FLOOR(EXTRACT(EPOCH FROM {column}) / 3600) AS BIGINT)")
        }
        _ => format!("(CAST(strftime('%s', {column}) AS INTEGER) / 3600)"),
    }
}

/// Statements that replace every rollup row with totals recomputed from the records. Run
/// them in one transaction; on PostgreSQL the first locks the rollups against the recorder.
pub fn rebuild_statements(backend: DbBackend) -> Vec<String> {
    let sum = |c: &str| format!("CAST(COALESCE(SUM({c}), 0) AS BIGINT)");
    let (i, o, t) = (
        sum("input_tokens"),
        sum("output_tokens"),
        sum("total_tokens"),
    );
    let insert = |kind: &str, time: &str, from: &str, model: &str, tokens: &str| {
        let h = hour(backend, time);
        let group_model = if model == "''" {
            String::new()
        } else {
            format!(", {model}")
        };
        format!(
            "INSERT INTO {TABLE} (workspace_uuid, kind, hour, bot_id, pipeline_id, mode, status, \
             model_name, n, input_tokens, output_tokens, total_tokens) \
             SELECT workspace_uuid, '{kind}', {h}, bot_id, pipeline_id, mode, status, {model}, \
             COUNT(*), {tokens} FROM {from} \
             GROUP BY workspace_uuid, {h}, bot_id, pipeline_id, mode, status{group_model}"
        )
    };
    let mut out = Vec::new();
    if backend == DbBackend::Postgres {
        out.push(format!("LOCK TABLE {TABLE} IN EXCLUSIVE MODE"));
    }
    out.push(format!("DELETE FROM {TABLE}"));
    out.push(insert(
        "execution",
        "\"started_at\"",
        "monitoring_executions",
        "''",
        &format!("{i}, {o}, {t}"),
    ));
    out.push(insert(
        "message",
        "\"timestamp\"",
        "monitoring_messages",
        "''",
        "0, 0, 0",
    ));
    out.push(insert(
        "llm_call",
        "\"timestamp\"",
        "monitoring_llm_calls",
        "model_name",
        &format!("{i}, {o}, {t}"),
    ));
    out
}
