//! Tool sources and what they record: a Workspace's external MCP servers and every tool
//! call the agent makes (`monitoring_tool_calls`).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261201_000007_tools"
    }
}

fn col(name: &str) -> ColumnDef {
    ColumnDef::new(Alias::new(name))
}

fn workspace_fk(table: &str) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{table}_workspace"))
        .from(Alias::new(table), Alias::new("workspace_uuid"))
        .to(Alias::new("workspaces"), Alias::new("uuid"))
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

fn index(name: &str, table: &str, cols: &[&str], unique: bool) -> IndexCreateStatement {
    let mut i = Index::create();
    i.name(name).table(Alias::new(table));
    if unique {
        i.unique();
    }
    for c in cols {
        i.col(Alias::new(*c));
    }
    i.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Alias::new("mcp_servers"))
                    .col(col("uuid").string_len(36).not_null().primary_key())
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("name").string_len(255).not_null())
                    .col(col("enable").boolean().not_null())
                    .col(col("mode").string_len(16).not_null())
                    .col(col("extra_args").json_binary().not_null())
                    .col(col("readme").text().not_null())
                    .col(col("created_at").timestamp_with_time_zone().not_null())
                    .col(col("updated_at").timestamp_with_time_zone().not_null())
                    .foreign_key(&mut workspace_fk("mcp_servers"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "uq_mcp_servers_workspace_name",
                "mcp_servers",
                &["workspace_uuid", "name"],
                true,
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Alias::new("monitoring_tool_calls"))
                    .col(col("id").string_len(36).not_null().primary_key())
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("execution_id").string_len(36).null())
                    .col(col("timestamp").timestamp_with_time_zone().not_null())
                    .col(col("bot_id").string_len(64).not_null())
                    .col(col("bot_name").string_len(255).not_null())
                    .col(col("pipeline_id").string_len(64).not_null())
                    .col(col("pipeline_name").string_len(255).not_null())
                    .col(col("session_id").string_len(255).not_null())
                    .col(col("tool_name").string_len(255).not_null())
                    .col(col("tool_source").string_len(16).not_null())
                    .col(col("source_name").string_len(255).not_null())
                    .col(col("duration").big_integer().not_null())
                    .col(col("status").string_len(16).not_null())
                    .col(col("mode").string_len(16).not_null())
                    .col(col("arguments").text().null())
                    .col(col("result").text().null())
                    .col(col("error_message").text().null())
                    .col(col("message_id").string_len(36).null())
                    .foreign_key(&mut workspace_fk("monitoring_tool_calls"))
                    .to_owned(),
            )
            .await?;
        for (name, cols) in [
            (
                "ix_tool_calls_workspace_timestamp",
                &["workspace_uuid", "timestamp", "id"][..],
            ),
            ("ix_tool_calls_execution", &["execution_id"][..]),
            (
                "ix_tool_calls_workspace_bot",
                &["workspace_uuid", "bot_id", "timestamp"][..],
            ),
        ] {
            manager
                .create_index(index(name, "monitoring_tool_calls", cols, false))
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["monitoring_tool_calls", "mcp_servers"] {
            manager
                .drop_table(Table::drop().table(Alias::new(table)).to_owned())
                .await?;
        }
        Ok(())
    }
}
