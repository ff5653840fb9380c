//! Instance metadata, accounts, Workspaces, memberships, invitations, API keys and
//! Workspace settings.

use sea_orm_migration::prelude::*;

pub struct Migration;

impl MigrationName for Migration {
    fn name(&self) -> &str {
        "m20261130_000001_identity"
    }
}

fn uuid_col(name: &str) -> ColumnDef {
    ColumnDef::new(Alias::new(name))
        .string_len(36)
        .not_null()
        .to_owned()
}

fn timestamps(t: &mut TableCreateStatement) -> &mut TableCreateStatement {
    t.col(
        ColumnDef::new(Alias::new("created_at"))
            .timestamp_with_time_zone()
            .not_null(),
    )
    .col(
        ColumnDef::new(Alias::new("updated_at"))
            .timestamp_with_time_zone()
            .not_null(),
    )
}

fn one_of(column: &str, values: &[&str]) -> SimpleExpr {
    Expr::col(Alias::new(column)).is_in(values.iter().map(|v| String::from(*v)))
}

fn fk(
    from_table: &str,
    from_col: &str,
    to_table: &str,
    to_col: &str,
    on_delete: ForeignKeyAction,
) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{from_table}_{from_col}"))
        .from(Alias::new(from_table), Alias::new(from_col))
        .to(Alias::new(to_table), Alias::new(to_col))
        .on_delete(on_delete)
        .to_owned()
}

const ROLES: &[&str] = &["owner", "admin", "developer", "operator", "viewer"];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Alias::new("instance_metadata"))
                    .col(
                        ColumnDef::new(Alias::new("key"))
                            .string_len(255)
                            .not_null()
                            .primary_key(),
                    )
                    .col(ColumnDef::new(Alias::new("value")).text().not_null())
                    .to_owned(),
            )
            .await?;

        let mut users = Table::create();
        users
            .table(Alias::new("users"))
            .col(
                ColumnDef::new(Alias::new("id"))
                    .integer()
                    .not_null()
                    .auto_increment()
                    .primary_key(),
            )
            .col(uuid_col("uuid").unique_key())
            .col(
                ColumnDef::new(Alias::new("user"))
                    .string_len(255)
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("normalized_email"))
                    .string_len(320)
                    .not_null()
                    .unique_key(),
            )
            .col(
                ColumnDef::new(Alias::new("password"))
                    .string_len(255)
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("status"))
                    .string_len(32)
                    .not_null()
                    .default("active")
                    .check(one_of("status", &["active", "disabled", "deleted"])),
            );
        manager
            .create_table(timestamps(&mut users).to_owned())
            .await?;

        let mut workspaces = Table::create();
        workspaces
            .table(Alias::new("workspaces"))
            .col(uuid_col("uuid").primary_key())
            .col(
                ColumnDef::new(Alias::new("name"))
                    .string_len(255)
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("status"))
                    .string_len(32)
                    .not_null()
                    .default("active")
                    .check(one_of("status", &["active", "suspended", "archived"])),
            )
            .col(
                ColumnDef::new(Alias::new("created_by_account_uuid"))
                    .string_len(36)
                    .null(),
            )
            .foreign_key(&mut fk(
                "workspaces",
                "created_by_account_uuid",
                "users",
                "uuid",
                ForeignKeyAction::SetNull,
            ));
        manager
            .create_table(timestamps(&mut workspaces).to_owned())
            .await?;

        let mut memberships = Table::create();
        memberships
            .table(Alias::new("workspace_memberships"))
            .col(uuid_col("uuid").primary_key())
            .col(uuid_col("workspace_uuid"))
            .col(uuid_col("account_uuid"))
            .col(
                ColumnDef::new(Alias::new("role"))
                    .string_len(32)
                    .not_null()
                    .check(one_of("role", ROLES)),
            )
            .col(
                ColumnDef::new(Alias::new("status"))
                    .string_len(32)
                    .not_null()
                    .default("active")
                    .check(one_of("status", &["active", "disabled", "removed"])),
            )
            .col(
                ColumnDef::new(Alias::new("invited_by_account_uuid"))
                    .string_len(36)
                    .null(),
            )
            .col(
                ColumnDef::new(Alias::new("joined_at"))
                    .timestamp_with_time_zone()
                    .null(),
            )
            .foreign_key(&mut fk(
                "workspace_memberships",
                "workspace_uuid",
                "workspaces",
                "uuid",
                ForeignKeyAction::Cascade,
            ))
            .foreign_key(&mut fk(
                "workspace_memberships",
                "account_uuid",
                "users",
                "uuid",
                ForeignKeyAction::Cascade,
            ))
            .foreign_key(&mut fk(
                "workspace_memberships",
                "invited_by_account_uuid",
                "users",
                "uuid",
                ForeignKeyAction::SetNull,
            ));
        manager
            .create_table(timestamps(&mut memberships).to_owned())
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("uq_workspace_membership_account")
                    .table(Alias::new("workspace_memberships"))
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("account_uuid"))
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_workspace_memberships_account_status")
                    .table(Alias::new("workspace_memberships"))
                    .col(Alias::new("account_uuid"))
                    .col(Alias::new("status"))
                    .to_owned(),
            )
            .await?;

        let mut invitations = Table::create();
        invitations
            .table(Alias::new("workspace_invitations"))
            .col(uuid_col("uuid").primary_key())
            .col(uuid_col("workspace_uuid"))
            .col(
                ColumnDef::new(Alias::new("normalized_email"))
                    .string_len(320)
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("role"))
                    .string_len(32)
                    .not_null()
                    .check(one_of(
                        "role",
                        &["admin", "developer", "operator", "viewer"],
                    )),
            )
            .col(
                ColumnDef::new(Alias::new("token_hash"))
                    .string_len(64)
                    .not_null()
                    .unique_key(),
            )
            .col(
                ColumnDef::new(Alias::new("status"))
                    .string_len(32)
                    .not_null()
                    .default("pending")
                    .check(one_of(
                        "status",
                        &["pending", "accepted", "revoked", "expired"],
                    )),
            )
            .col(
                ColumnDef::new(Alias::new("expires_at"))
                    .timestamp_with_time_zone()
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("accepted_at"))
                    .timestamp_with_time_zone()
                    .null(),
            )
            .col(
                ColumnDef::new(Alias::new("revoked_at"))
                    .timestamp_with_time_zone()
                    .null(),
            )
            .col(uuid_col("created_by_account_uuid"))
            .foreign_key(&mut fk(
                "workspace_invitations",
                "workspace_uuid",
                "workspaces",
                "uuid",
                ForeignKeyAction::Cascade,
            ))
            .foreign_key(&mut fk(
                "workspace_invitations",
                "created_by_account_uuid",
                "users",
                "uuid",
                ForeignKeyAction::Cascade,
            ));
        manager
            .create_table(timestamps(&mut invitations).to_owned())
            .await?;

        let mut api_keys = Table::create();
        api_keys
            .table(Alias::new("api_keys"))
            .col(
                ColumnDef::new(Alias::new("id"))
                    .integer()
                    .not_null()
                    .auto_increment()
                    .primary_key(),
            )
            .col(uuid_col("uuid").unique_key())
            .col(uuid_col("workspace_uuid"))
            .col(
                ColumnDef::new(Alias::new("created_by_account_uuid"))
                    .string_len(36)
                    .null(),
            )
            .col(
                ColumnDef::new(Alias::new("name"))
                    .string_len(255)
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("description"))
                    .string_len(512)
                    .not_null()
                    .default(""),
            )
            .col(
                ColumnDef::new(Alias::new("key_hash"))
                    .string_len(64)
                    .not_null()
                    .unique_key(),
            )
            .col(
                ColumnDef::new(Alias::new("scopes"))
                    .json_binary()
                    .not_null(),
            )
            .col(
                ColumnDef::new(Alias::new("status"))
                    .string_len(32)
                    .not_null()
                    .default("active")
                    .check(one_of("status", &["active", "revoked"])),
            )
            .col(
                ColumnDef::new(Alias::new("expires_at"))
                    .timestamp_with_time_zone()
                    .null(),
            )
            .col(
                ColumnDef::new(Alias::new("last_used_at"))
                    .timestamp_with_time_zone()
                    .null(),
            )
            .col(
                ColumnDef::new(Alias::new("revoked_at"))
                    .timestamp_with_time_zone()
                    .null(),
            )
            .foreign_key(&mut fk(
                "api_keys",
                "workspace_uuid",
                "workspaces",
                "uuid",
                ForeignKeyAction::Cascade,
            ))
            .foreign_key(&mut fk(
                "api_keys",
                "created_by_account_uuid",
                "users",
                "uuid",
                ForeignKeyAction::SetNull,
            ));
        manager
            .create_table(timestamps(&mut api_keys).to_owned())
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("ix_api_keys_workspace_status")
                    .table(Alias::new("api_keys"))
                    .col(Alias::new("workspace_uuid"))
                    .col(Alias::new("status"))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Alias::new("workspace_metadata"))
                    .col(uuid_col("workspace_uuid"))
                    .col(ColumnDef::new(Alias::new("key")).string_len(255).not_null())
                    .col(ColumnDef::new(Alias::new("value")).text().null())
                    .primary_key(
                        Index::create()
                            .col(Alias::new("workspace_uuid"))
                            .col(Alias::new("key")),
                    )
                    .foreign_key(&mut fk(
                        "workspace_metadata",
                        "workspace_uuid",
                        "workspaces",
                        "uuid",
                        ForeignKeyAction::Cascade,
                    ))
                    .to_owned(),
            )
            .await?;

        // Partial unique indexes: the same SQL on SQLite and PostgreSQL.
        let db = manager.get_connection();
        db.execute_unprepared(
            "CREATE UNIQUE INDEX uq_workspace_memberships_one_active_owner \
             ON workspace_memberships (workspace_uuid) WHERE role = 'owner' AND status = 'active'",
        )
        .await?;
        db.execute_unprepared(
            "CREATE UNIQUE INDEX uq_workspace_invitations_pending_email \
             ON workspace_invitations (workspace_uuid, normalized_email) WHERE status = 'pending'",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            "workspace_metadata",
            "api_keys",
            "workspace_invitations",
            "workspace_memberships",
            "workspaces",
            "users",
            "instance_metadata",
        ] {
            manager
                .drop_table(Table::drop().table(Alias::new(table)).to_owned())
                .await?;
        }
        Ok(())
    }
}
