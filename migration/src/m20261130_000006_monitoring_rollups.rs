//! Hourly rollups behind monitoring totals and summaries, and each execution's own token
//! totals (so that moving an execution between statuses, or expiring it, moves exactly its
//! share) and input preview (so that lists need not read messages). Existing rows are
//! backfilled, except previews (read from the message while absent).

use sea_orm_migration::prelude::*;

use crate::rollups;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261130_000006_monitoring_rollups"
    }
}

fn col(name: &str) -> ColumnDef {
    ColumnDef::new(Alias::new(name))
}

/// Rollup reads answered from the index alone, and the lease reaper's scan.
const INDEXES: &[(&str, &str, &[&str])] = &[
    (
        "ix_monitoring_rollups_cover",
        rollups::TABLE,
        &[
            "workspace_uuid",
            "kind",
            "hour",
            "bot_id",
            "pipeline_id",
            "mode",
            "status",
            "model_name",
            "n",
            "input_tokens",
            "output_tokens",
            "total_tokens",
        ],
    ),
    (
        "ix_executions_lease",
        "monitoring_executions",
        &["status", "lease_expires_at"],
    ),
];

const EXECUTION_TOTALS: &[&str] = &["llm_calls", "input_tokens", "output_tokens", "total_tokens"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite alters one column at a time.
        for name in EXECUTION_TOTALS {
            manager
                .alter_table(
                    Table::alter()
                        .table(Alias::new("monitoring_executions"))
                        .add_column(col(name).big_integer().not_null().default(0))
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table(Alias::new("monitoring_executions"))
                    .add_column(col("input_preview").string_len(160).null())
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        db.execute_unprepared(
            "UPDATE monitoring_executions SET \
             llm_calls = (SELECT COUNT(*) FROM monitoring_llm_calls c WHERE c.execution_id = monitoring_executions.id), \
             input_tokens = (SELECT COALESCE(SUM(c.input_tokens), 0) FROM monitoring_llm_calls c WHERE c.execution_id = monitoring_executions.id), \
             output_tokens = (SELECT COALESCE(SUM(c.output_tokens), 0) FROM monitoring_llm_calls c WHERE c.execution_id = monitoring_executions.id), \
             total_tokens = (SELECT COALESCE(SUM(c.total_tokens), 0) FROM monitoring_llm_calls c WHERE c.execution_id = monitoring_executions.id)",
        )
        .await?;

        let mut table = Table::create();
        table
            .table(Alias::new(rollups::TABLE))
            .col(col("workspace_uuid").string_len(36).not_null())
            .col(col("kind").string_len(16).not_null())
            .col(col("hour").big_integer().not_null())
            .col(col("bot_id").string_len(64).not_null())
            .col(col("pipeline_id").string_len(64).not_null())
            .col(col("mode").string_len(16).not_null())
            .col(col("status").string_len(32).not_null())
            .col(col("model_name").string_len(255).not_null())
            .col(col("n").big_integer().not_null().default(0))
            .col(col("input_tokens").big_integer().not_null().default(0))
            .col(col("output_tokens").big_integer().not_null().default(0))
            .col(col("total_tokens").big_integer().not_null().default(0))
            .primary_key(
                Index::create()
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("kind"))
                    .col(Alias::new("hour"))
                    .col(Alias::new("bot_id"))
                    .col(Alias::new("pipeline_id"))
                    .col(Alias::new("mode"))
                    .col(Alias::new("status"))
                    .col(Alias::new("model_name")),
            )
            .foreign_key(
                ForeignKey::create()
                    .name("fk_monitoring_rollups_workspace")
                    .from(Alias::new(rollups::TABLE), Alias::new("workspace_uuid"))
                    .to(Alias::new("workspaces"), Alias::new("uuid"))
                    .on_delete(ForeignKeyAction::Cascade),
            );
        manager.create_table(table.to_owned()).await?;
        for (name, table, cols) in INDEXES {
            let mut index = Index::create();
            index.name(*name).table(Alias::new(*table));
            for c in *cols {
                index.col(Alias::new(*c));
            }
            manager.create_index(index.to_owned()).await?;
        }
        let backend = manager.get_database_backend();
        for sql in rollups::rebuild_statements(backend)
            .into_iter()
            .chain(rollups::trigger_statements(backend))
        {
            db.execute_unprepared(&sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        for sql in rollups::drop_trigger_statements(manager.get_database_backend()) {
            db.execute_unprepared(&sql).await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("ix_executions_lease")
                    .table(Alias::new("monitoring_executions"))
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(Alias::new(rollups::TABLE)).to_owned())
            .await?;
        for name in EXECUTION_TOTALS.iter().chain(&["input_preview"]) {
            manager
                .alter_table(
                    Table::alter()
                        .table(Alias::new("monitoring_executions"))
                        .drop_column(Alias::new(*name))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
