//! Plugins: what a Workspace installed (its package kept here, so every replica's runtime
//! can unpack the same files) and the plugins' key/value storage.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261202_000008_plugins"
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
                    .table(Alias::new("plugin_settings"))
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("plugin_author").string_len(255).not_null())
                    .col(col("plugin_name").string_len(255).not_null())
                    .col(
                        col("installation_uuid")
                            .string_len(36)
                            .not_null()
                            .unique_key(),
                    )
                    .col(col("enabled").boolean().not_null())
                    .col(col("priority").integer().not_null())
                    .col(col("config").json_binary().not_null())
                    .col(col("install_source").string_len(32).not_null())
                    .col(col("install_info").json_binary().not_null())
                    .col(col("manifest").json_binary().not_null())
                    .col(col("artifact_digest").string_len(64).not_null())
                    .col(col("runtime_revision").integer().not_null())
                    .col(col("package").blob().not_null())
                    .col(col("created_at").timestamp_with_time_zone().not_null())
                    .col(col("updated_at").timestamp_with_time_zone().not_null())
                    .primary_key(
                        Index::create()
                            .col(Alias::new("workspace_uuid"))
                            .col(Alias::new("plugin_author"))
                            .col(Alias::new("plugin_name")),
                    )
                    .foreign_key(&mut workspace_fk("plugin_settings"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Alias::new("plugin_storage"))
                    .col(col("workspace_uuid").string_len(36).not_null())
                    .col(col("owner_type").string_len(64).not_null())
                    .col(col("owner").string_len(255).not_null())
                    .col(col("key").string_len(255).not_null())
                    .col(col("value").blob().not_null())
                    .col(col("created_at").timestamp_with_time_zone().not_null())
                    .col(col("updated_at").timestamp_with_time_zone().not_null())
                    .primary_key(
                        Index::create()
                            .col(Alias::new("workspace_uuid"))
                            .col(Alias::new("owner_type"))
                            .col(Alias::new("owner"))
                            .col(Alias::new("key")),
                    )
                    .foreign_key(&mut workspace_fk("plugin_storage"))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for t in ["plugin_storage", "plugin_settings"] {
            manager
                .drop_table(Table::drop().table(Alias::new(t)).to_owned())
                .await?;
        }
        Ok(())
    }
}
