//! Pipelines and bots (routes live in the bot's `event_bindings`).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261130_000003_pipelines_bots"
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

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Alias::new("pipelines"))
                    .col(col("uuid").string_len(36).not_null().primary_key())
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("name").string_len(255).not_null())
                    .col(col("description").string_len(255).not_null().default(""))
                    .col(col("emoji").string_len(16).not_null().default("⚙️"))
                    .col(col("for_version").string_len(64).not_null())
                    .col(col("is_default").boolean().not_null().default(false))
                    .col(col("stages").json_binary().not_null())
                    .col(col("config").json_binary().not_null())
                    .col(col("extensions_preferences").json_binary().not_null())
                    .col(col("created_at").timestamp_with_time_zone().not_null())
                    .col(col("updated_at").timestamp_with_time_zone().not_null())
                    .foreign_key(&mut workspace_fk("pipelines"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_pipelines_workspace_created")
                    .table(Alias::new("pipelines"))
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Alias::new("bots"))
                    .col(col("uuid").string_len(36).not_null().primary_key())
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("name").string_len(255).not_null())
                    .col(col("description").string_len(255).not_null().default(""))
                    .col(col("adapter").string_len(255).not_null())
                    .col(col("adapter_config").json_binary().not_null())
                    .col(col("enable").boolean().not_null().default(false))
                    .col(col("event_bindings").json_binary().not_null())
                    .col(col("created_at").timestamp_with_time_zone().not_null())
                    .col(col("updated_at").timestamp_with_time_zone().not_null())
                    .foreign_key(&mut workspace_fk("bots"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_bots_workspace_created")
                    .table(Alias::new("bots"))
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("created_at"))
                    .to_owned(),
            )
            .await?;
        // At most one default pipeline per Workspace.
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNIQUE INDEX uq_pipelines_one_default ON pipelines (workspace_uuid) WHERE is_default = TRUE",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Alias::new("bots")).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Alias::new("pipelines")).to_owned())
            .await
    }
}
