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

/// A table whose rows the rollups count.
struct Counted {
    table: &'static str,
    kind: &'static str,
    time: &'static str,
    /// The model column, if any (else the rollup's model is empty).
    model: Option<&'static str>,
    /// Whether the rows carry token counts.
    tokens: bool,
    /// The columns whose change moves a row between rollup rows.
    keyed: &'static [&'static str],
}

const COUNTED: &[Counted] = &[
    Counted {
        table: "monitoring_executions",
        kind: "execution",
        time: "started_at",
        model: None,
        tokens: true,
        keyed: &[
            "workspace_uuid",
            "started_at",
            "bot_id",
            "pipeline_id",
            "mode",
            "status",
            "input_tokens",
            "output_tokens",
            "total_tokens",
        ],
    },
    Counted {
        table: "monitoring_messages",
        kind: "message",
        time: "timestamp",
        model: None,
        tokens: false,
        keyed: &[
            "workspace_uuid",
            "timestamp",
            "bot_id",
            "pipeline_id",
            "mode",
            "status",
        ],
    },
    Counted {
        table: "monitoring_llm_calls",
        kind: "llm_call",
        time: "timestamp",
        model: Some("model_name"),
        tokens: true,
        keyed: &[
            "workspace_uuid",
            "timestamp",
            "bot_id",
            "pipeline_id",
            "mode",
            "status",
            "model_name",
            "input_tokens",
            "output_tokens",
            "total_tokens",
        ],
    },
];

/// Adds `sign` times the row `r` (`NEW` or `OLD`) to its rollup row, as one upsert.
fn upsert(backend: DbBackend, c: &Counted, r: &str, sign: i32) -> String {
    let h = hour(backend, &format!("{r}.\"{}\"", c.time));
    let model = c.model.map_or("''".to_string(), |m| format!("{r}.{m}"));
    let token = |col: &str| {
        if c.tokens {
            format!("{sign} * {r}.{col}")
        } else {
            "0".to_string()
        }
    };
    let add = |col: &str| format!("{col} = {TABLE}.{col} + excluded.{col}");
    format!(
        "INSERT INTO {TABLE} (workspace_uuid, kind, hour, bot_id, pipeline_id, mode, status, \
         model_name, n, input_tokens, output_tokens, total_tokens) \
         VALUES ({r}.workspace_uuid, '{kind}', {h}, {r}.bot_id, {r}.pipeline_id, {r}.mode, \
         {r}.status, {model}, {sign}, {i}, {o}, {t}) \
         ON CONFLICT (workspace_uuid, kind, hour, bot_id, pipeline_id, mode, status, model_name) \
         DO UPDATE SET {n}, {ai}, {ao}, {at}",
        kind = c.kind,
        i = token("input_tokens"),
        o = token("output_tokens"),
        t = token("total_tokens"),
        n = add("n"),
        ai = add("input_tokens"),
        ao = add("output_tokens"),
        at = add("total_tokens"),
    )
}

/// An LLM call adds to its execution's own totals.
const EXECUTION_TOTALS: &str = "UPDATE monitoring_executions SET llm_calls = llm_calls + 1, \
    input_tokens = input_tokens + NEW.input_tokens, output_tokens = output_tokens + NEW.output_tokens, \
    total_tokens = total_tokens + NEW.total_tokens WHERE id = NEW.execution_id";

/// Triggers that keep the rollups (and executions' own totals) in step with every write to
/// the records, in the writing statement itself: inserts add, deletes subtract, updates of a
/// keyed column move the row. No writer can forget them, and they cost no round trips.
pub fn trigger_statements(backend: DbBackend) -> Vec<String> {
    let mut out = Vec::new();
    for c in COUNTED {
        let t = c.table;
        let keyed = c
            .keyed
            .iter()
            .map(|k| format!("\"{k}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let llm = c.table == "monitoring_llm_calls";
        if backend == DbBackend::Postgres {
            let totals = if llm {
                format!("IF TG_OP = 'INSERT' THEN {EXECUTION_TOTALS}; END IF;")
            } else {
                String::new()
            };
            out.push(format!(
                "CREATE OR REPLACE FUNCTION {t}_rollup() RETURNS trigger LANGUAGE plpgsql AS $$ \
                 BEGIN \
                 IF TG_OP IN ('UPDATE', 'DELETE') THEN {old}; END IF; \
                 IF TG_OP IN ('INSERT', 'UPDATE') THEN {new}; END IF; \
                 {totals} \
                 RETURN NULL; END $$",
                old = upsert(backend, c, "OLD", -1),
                new = upsert(backend, c, "NEW", 1),
            ));
            out.push(format!(
                "CREATE TRIGGER {t}_rollup AFTER INSERT OR DELETE OR UPDATE OF {keyed} ON {t} \
                 FOR EACH ROW EXECUTE FUNCTION {t}_rollup()"
            ));
        } else {
            let totals = if llm {
                format!(" {EXECUTION_TOTALS};")
            } else {
                String::new()
            };
            out.push(format!(
                "CREATE TRIGGER {t}_rollup_insert AFTER INSERT ON {t} BEGIN {};{totals} END",
                upsert(backend, c, "NEW", 1)
            ));
            out.push(format!(
                "CREATE TRIGGER {t}_rollup_delete AFTER DELETE ON {t} BEGIN {}; END",
                upsert(backend, c, "OLD", -1)
            ));
            out.push(format!(
                "CREATE TRIGGER {t}_rollup_update AFTER UPDATE OF {keyed} ON {t} BEGIN {}; {}; END",
                upsert(backend, c, "OLD", -1),
                upsert(backend, c, "NEW", 1)
            ));
        }
    }
    out
}

/// Statements that drop the triggers.
pub fn drop_trigger_statements(backend: DbBackend) -> Vec<String> {
    let mut out = Vec::new();
    for c in COUNTED {
        let t = c.table;
        if backend == DbBackend::Postgres {
            out.push(format!("DROP TRIGGER IF EXISTS {t}_rollup ON {t}"));
            out.push(format!("DROP FUNCTION IF EXISTS {t}_rollup()"));
        } else {
            for op in ["insert", "delete", "update"] {
                out.push(format!("DROP TRIGGER IF EXISTS {t}_rollup_{op}"));
            }
        }
    }
    out
}
