//! Model providers and their models (LLM, embedding, rerank in one table, by `kind`).

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261130_000002_providers"
    }
}

fn col(name: &str) -> ColumnDef {
    ColumnDef::new(Alias::new(name))
}

fn timestamps(t: &mut TableCreateStatement) -> &mut TableCreateStatement {
    t.col(col("created_at").timestamp_with_time_zone().not_null())
        .col(col("updated_at").timestamp_with_time_zone().not_null())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let mut providers = Table::create();
        providers
            .table(Alias::new("model_providers"))
            .col(col("uuid").string_len(36).not_null().primary_key())
            .col(col("workspace_uuid").string_len(36).not_null())
            .col(col("name").string_len(255).not_null())
            .col(col("requester").string_len(255).not_null())
            .col(col("base_url").string_len(512).not_null())
            .col(col("api_keys").json_binary().not_null())
            .col(col("config").json_binary().not_null())
            .foreign_key(
                ForeignKey::create()
                    .name("fk_model_providers_workspace")
                    .from(Alias::new("model_providers"), Alias::new("workspace_uuid"))
                    .to(Alias::new("workspaces"), Alias::new("uuid"))
                    .on_delete(ForeignKeyAction::Cascade),
            );
        manager
            .create_table(timestamps(&mut providers).to_owned())
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_model_providers_workspace_created")
                    .table(Alias::new("model_providers"))
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("created_at"))
                    .to_owned(),
            )
            .await?;

        let mut models = Table::create();
        models
            .table(Alias::new("models"))
            .col(col("uuid").string_len(36).not_null().primary_key())
            .col(col("workspace_uuid").string_len(36).not_null())
            .col(col("provider_uuid").string_len(36).not_null())
            .col(
                col("kind")
                    .string_len(16)
                    .not_null()
                    .check(Expr::col(Alias::new("kind")).is_in(["llm", "embedding", "rerank"])),
            )
            .col(col("name").string_len(255).not_null())
            .col(col("abilities").json_binary().not_null())
            .col(col("context_length").integer().null())
            .col(col("reasoning_config").json_binary().not_null())
            .col(col("extra_args").json_binary().not_null())
            .col(col("prefered_ranking").integer().not_null().default(0))
            .foreign_key(
                ForeignKey::create()
                    .name("fk_models_workspace")
                    .from(Alias::new("models"), Alias::new("workspace_uuid"))
                    .to(Alias::new("workspaces"), Alias::new("uuid"))
                    .on_delete(ForeignKeyAction::Cascade),
            )
            // No ON DELETE: the database itself refuses to drop a provider that still has models.
            .foreign_key(
                ForeignKey::create()
                    .name("fk_models_provider")
                    .from(Alias::new("models"), Alias::new("provider_uuid"))
                    .to(Alias::new("model_providers"), Alias::new("uuid")),
            );
        manager
            .create_table(timestamps(&mut models).to_owned())
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_models_workspace_kind_created")
                    .table(Alias::new("models"))
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("kind"))
                    .col(Alias::new("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_models_provider_kind")
                    .table(Alias::new("models"))
                    .col(Alias::new("provider_uuid"))
                    .col(Alias::new("kind"))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Alias::new("models")).to_owned())
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table(Alias::new("model_providers"))
                    .to_owned(),
            )
            .await
    }
}
