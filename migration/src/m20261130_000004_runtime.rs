//! What the runtime records: route traces, executions, messages, LLM calls, errors, sessions.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261130_000004_runtime"
    }
}

fn col(name: &str) -> ColumnDef {
    ColumnDef::new(Alias::new(name))
}

fn id_col() -> ColumnDef {
    col("id").string_len(36).not_null().primary_key().to_owned()
}

fn workspace_fk(table: &str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{table}_workspace"))
        .from(Alias::new(table), Alias::new("workspace_uuid"))
        .to(Alias::new("workspaces"), Alias::new("uuid"))
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

fn index(name: &str, table: &str, cols: &[&str]) -> IndexCreateStatement {
    let mut i = Index::create();
    i.name(name).table(Alias::new(table));
    for c in cols {
        i.col(Alias::new(*c));
    }
    i.to_owned()
}

/// Columns every record shares: who, where, which conversation.
fn context(t: &mut TableCreateStatement) -> &mut TableCreateStatement {
    t.col(col("workspace_uuid").string_len(36).not_null())
        .col(col("execution_id").string_len(36).null())
        .col(col("timestamp").timestamp_with_time_zone().not_null())
        .col(col("bot_id").string_len(64).not_null())
        .col(col("bot_name").string_len(255).not_null())
        .col(col("pipeline_id").string_len(64).not_null())
        .col(col("pipeline_name").string_len(255).not_null())
        .col(col("session_id").string_len(255).not_null())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Alias::new("route_traces"))
                    .col(
                        col("id")
                            .big_integer()
                            .not_null()
                            .auto_increment()
                            .primary_key(),
                    )
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("bot_uuid").string_len(36).not_null())
                    .col(col("timestamp").timestamp_with_time_zone().not_null())
                    .col(col("event_type").string_len(255).not_null())
                    .col(col("status").string_len(32).not_null())
                    .col(col("binding_id").string_len(64).null())
                    .col(col("event_pattern").string_len(255).null())
                    .col(col("target_type").string_len(32).null())
                    .col(col("target_uuid").string_len(64).null())
                    .col(col("failure_code").string_len(64).null())
                    .col(col("reason").string_len(1024).not_null())
                    .col(col("run_id").string_len(36).null())
                    .foreign_key(&mut workspace_fk("route_traces"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ix_route_traces_bot",
                "route_traces",
                &["workspace_uuid", "bot_uuid", "id"],
            ))
            .await?;

        let mut executions = Table::create();
        executions
            .table(Alias::new("monitoring_executions"))
            .col(id_col())
            .col(col("workspace_uuid").string_len(36).not_null())
            .col(col("source").string_len(16).not_null())
            .col(col("mode").string_len(16).not_null())
            .col(col("status").string_len(16).not_null())
            .col(col("bot_id").string_len(64).not_null())
            .col(col("bot_name").string_len(255).not_null())
            .col(col("pipeline_id").string_len(64).not_null())
            .col(col("pipeline_name").string_len(255).not_null())
            .col(col("session_id").string_len(255).not_null())
            .col(col("event_id").string_len(64).null())
            .col(col("message_id").string_len(36).null())
            .col(col("progress_event").string_len(64).null())
            .col(col("error").text().null())
            .col(col("owner").string_len(64).null())
            .col(col("lease_expires_at").timestamp_with_time_zone().null())
            .col(col("started_at").timestamp_with_time_zone().not_null())
            .col(col("finished_at").timestamp_with_time_zone().null())
            .col(col("duration_ms").big_integer().null())
            .foreign_key(&mut workspace_fk("monitoring_executions"));
        manager.create_table(executions.to_owned()).await?;
        manager
            .create_index(index(
                "ix_executions_workspace_started",
                "monitoring_executions",
                &["workspace_uuid", "started_at", "id"],
            ))
            .await?;
        manager
            .create_index(index(
                "ix_executions_workspace_status",
                "monitoring_executions",
                &["workspace_uuid", "status", "started_at"],
            ))
            .await?;

        let mut messages = Table::create();
        messages
            .table(Alias::new("monitoring_messages"))
            .col(id_col());
        context(&mut messages)
            .col(col("role").string_len(16).not_null())
            .col(col("message_content").text().not_null())
            .col(col("status").string_len(32).not_null())
            .col(col("level").string_len(16).not_null())
            .col(col("mode").string_len(16).not_null())
            .col(col("platform").string_len(64).null())
            .col(col("user_id").string_len(255).null())
            .col(col("user_name").string_len(255).null())
            .col(col("runner_name").string_len(255).null())
            .col(col("event_id").string_len(64).null())
            .col(col("parent_message_id").string_len(36).null())
            .foreign_key(&mut workspace_fk("monitoring_messages"));
        manager.create_table(messages.to_owned()).await?;
        manager
            .create_index(index(
                "ix_messages_workspace_timestamp",
                "monitoring_messages",
                &["workspace_uuid", "timestamp", "id"],
            ))
            .await?;
        manager
            .create_index(index(
                "ix_messages_workspace_session",
                "monitoring_messages",
                &["workspace_uuid", "bot_id", "session_id", "timestamp"],
            ))
            .await?;
        manager
            .create_index(index(
                "ix_messages_execution",
                "monitoring_messages",
                &["execution_id"],
            ))
            .await?;

        let mut llm = Table::create();
        llm.table(Alias::new("monitoring_llm_calls")).col(id_col());
        context(&mut llm)
            .col(col("model_name").string_len(255).not_null())
            .col(col("model_uuid").string_len(36).null())
            .col(col("input_tokens").big_integer().not_null())
            .col(col("output_tokens").big_integer().not_null())
            .col(col("total_tokens").big_integer().not_null())
            .col(col("duration").big_integer().not_null())
            .col(col("status").string_len(16).not_null())
            .col(col("mode").string_len(16).not_null())
            .col(col("error_message").text().null())
            .col(col("message_id").string_len(36).null())
            .col(col("details").json_binary().null())
            .foreign_key(&mut workspace_fk("monitoring_llm_calls"));
        manager.create_table(llm.to_owned()).await?;
        manager
            .create_index(index(
                "ix_llm_calls_workspace_timestamp",
                "monitoring_llm_calls",
                &["workspace_uuid", "timestamp", "id"],
            ))
            .await?;
        manager
            .create_index(index(
                "ix_llm_calls_execution",
                "monitoring_llm_calls",
                &["execution_id"],
            ))
            .await?;

        let mut errors = Table::create();
        errors.table(Alias::new("monitoring_errors")).col(id_col());
        context(&mut errors)
            .col(col("error_type").string_len(255).not_null())
            .col(col("error_message").text().not_null())
            .col(col("mode").string_len(16).not_null())
            .col(col("message_id").string_len(36).null())
            .foreign_key(&mut workspace_fk("monitoring_errors"));
        manager.create_table(errors.to_owned()).await?;
        manager
            .create_index(index(
                "ix_errors_workspace_timestamp",
                "monitoring_errors",
                &["workspace_uuid", "timestamp", "id"],
            ))
            .await?;
        manager
            .create_index(index(
                "ix_errors_execution",
                "monitoring_errors",
                &["execution_id"],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Alias::new("monitoring_sessions"))
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("bot_id").string_len(64).not_null())
                    .col(col("session_id").string_len(255).not_null())
                    .col(col("bot_name").string_len(255).not_null())
                    .col(col("pipeline_id").string_len(64).not_null())
                    .col(col("pipeline_name").string_len(255).not_null())
                    .col(col("message_count").big_integer().not_null().default(0))
                    .col(col("start_time").timestamp_with_time_zone().not_null())
                    .col(col("last_activity").timestamp_with_time_zone().not_null())
                    .col(col("is_active").boolean().not_null().default(true))
                    .col(col("platform").string_len(64).null())
                    .col(col("user_id").string_len(255).null())
                    .col(col("user_name").string_len(255).null())
                    .primary_key(
                        Index::create()
                            .col(Alias::new("workspace_uuid"))
                            .col(Alias::new("bot_id"))
                            .col(Alias::new("session_id")),
                    )
                    .foreign_key(&mut workspace_fk("monitoring_sessions"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "ix_sessions_workspace_activity",
                "monitoring_sessions",
                &["workspace_uuid", "last_activity"],
            ))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in [
            "monitoring_sessions",
            "monitoring_errors",
            "monitoring_llm_calls",
            "monitoring_messages",
            "monitoring_executions",
            "route_traces",
        ] {
            manager
                .drop_table(Table::drop().table(Alias::new(t)).to_owned())
                .await?;
        }
        Ok(())
    }
}
