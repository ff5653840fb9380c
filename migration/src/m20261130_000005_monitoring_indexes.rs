//! Indexes measured against a 1,000,000-row Workspace (bench/monitoring.sh): a session's
//! related executions, bot-filtered lists, and token sums read from the index alone.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261130_000005_monitoring_indexes"
    }
}

const INDEXES: &[(&str, &str, &[&str])] = &[
    (
        "ix_executions_session",
        "monitoring_executions",
        &["workspace_uuid", "bot_id", "session_id", "started_at"],
    ),
    (
        "ix_executions_workspace_bot",
        "monitoring_executions",
        &["workspace_uuid", "bot_id", "started_at"],
    ),
    (
        "ix_llm_calls_workspace_tokens",
        "monitoring_llm_calls",
        &[
            "workspace_uuid",
            "timestamp",
            "input_tokens",
            "output_tokens",
            "total_tokens",
        ],
    ),
    (
        "ix_llm_calls_workspace_bot",
        "monitoring_llm_calls",
        &["workspace_uuid", "bot_id", "timestamp"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, cols) in INDEXES {
            let mut index = Index::create();
            index.name(*name).table(Alias::new(*table));
            for c in *cols {
                index.col(Alias::new(*c));
            }
            manager.create_index(index.to_owned()).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, _) in INDEXES {
            manager
                .drop_index(
                    Index::drop()
                        .name(*name)
                        .table(Alias::new(*table))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
