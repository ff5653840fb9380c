//! Workspace and membership storage. Everything about one Workspace's members takes the
//! caller's `WorkspaceCtx`, so another Workspace's data is unreachable from here.

use std::collections::HashMap;

use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter, QueryOrder,
};
use uuid::Uuid;

use crate::access::{Role, WorkspaceCtx};
use crate::entities::{membership, user, workspace, workspace_metadata};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::i18n::Language;

pub use crate::access::lookup::{
    active_memberships, language, role_of, setting, sole_workspace, LANGUAGE_KEY,
};

pub async fn get(db: &impl ConnectionTrait, ws: &Uuid) -> ApiResult<workspace::Model> {
    workspace::Entity::find_by_id(ws.to_string())
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)
}

pub async fn count(db: &impl ConnectionTrait) -> ApiResult<u64> {
    Ok(workspace::Entity::find().count(db).await?)
}

/// A new Workspace with `account` as its owner.
pub async fn create_with_owner(
    db: &impl ConnectionTrait,
    name: &str,
    account: &str,
) -> ApiResult<workspace::Model> {
    let now = crate::db::now();
    let ws = workspace::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        name: Set(name.to_string()),
        status: Set("active".into()),
        created_by_account_uuid: Set(Some(account.to_string())),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    membership::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.clone()),
        account_uuid: Set(account.to_string()),
        role: Set(Role::Owner.as_str().into()),
        status: Set("active".into()),
        invited_by_account_uuid: Set(None),
        joined_at: Set(Some(now)),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(ws)
}

pub async fn rename(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    name: &str,
) -> ApiResult<workspace::Model> {
    let mut model: workspace::ActiveModel = get(db, &ws.uuid).await?.into();
    model.name = Set(name.to_string());
    model.updated_at = Set(crate::db::now());
    Ok(model.update(db).await?)
}

/// Stores a Workspace setting; `None` removes it.
pub async fn set_setting(
    db: &impl ConnectionTrait,
    ws: &Uuid,
    key: &str,
    value: Option<&str>,
) -> ApiResult<()> {
    let Some(value) = value else {
        workspace_metadata::Entity::delete_by_id((ws.to_string(), key.to_string()))
            .exec(db)
            .await?;
        return Ok(());
    };
    let row = workspace_metadata::ActiveModel {
        workspace_uuid: Set(ws.to_string()),
        key: Set(key.into()),
        value: Set(Some(value.into())),
    };
    workspace_metadata::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                workspace_metadata::Column::WorkspaceUuid,
                workspace_metadata::Column::Key,
            ])
            .update_column(workspace_metadata::Column::Value)
            .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(())
}

pub async fn set_language(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    language: Language,
) -> ApiResult<()> {
    set_setting(db, &ws.uuid, LANGUAGE_KEY, Some(language.as_str())).await
}

/// A membership with its account.
pub struct Member {
    pub membership: membership::Model,
    pub account: user::Model,
}

async fn with_accounts(
    db: &impl ConnectionTrait,
    rows: Vec<membership::Model>,
) -> ApiResult<Vec<Member>> {
    let ids: Vec<String> = rows.iter().map(|m| m.account_uuid.clone()).collect();
    let accounts: HashMap<String, user::Model> = user::Entity::find()
        .filter(user::Column::Uuid.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.uuid.clone(), u))
        .collect();
    Ok(rows
        .into_iter()
        .filter_map(|m| {
            let account = accounts.get(&m.account_uuid)?.clone();
            Some(Member {
                membership: m,
                account,
            })
        })
        .collect())
}

/// Active members, first joined first.
pub async fn members(db: &impl ConnectionTrait, ws: &WorkspaceCtx) -> ApiResult<Vec<Member>> {
    let rows = membership::Entity::find()
        .filter(membership::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(membership::Column::Status.eq("active"))
        .order_by_asc(membership::Column::CreatedAt)
        .order_by_asc(membership::Column::Uuid)
        .all(db)
        .await?;
    with_accounts(db, rows).await
}

/// The active member `account` of this Workspace, else 404.
pub async fn member(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    account: &Uuid,
) -> ApiResult<Member> {
    let row = membership::Entity::find()
        .filter(membership::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(membership::Column::AccountUuid.eq(account.to_string()))
        .filter(membership::Column::Status.eq("active"))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)?;
    with_accounts(db, vec![row])
        .await?
        .pop()
        .ok_or_else(ApiError::not_found)
}

fn guard_owner(target: &Member) -> ApiResult<()> {
    if target.membership.role == Role::Owner.as_str() {
        return Err(ApiError::new(ErrorCode::LastOwnerRequired));
    }
    Ok(())
}

/// Changes a member's role; the owner is untouchable and `owner` cannot be given.
pub async fn change_role(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    account: &Uuid,
    role: Role,
) -> ApiResult<Member> {
    if role == Role::Owner {
        return Err(ApiError::new(ErrorCode::PermissionDenied)
            .msg("Workspace ownership cannot be transferred"));
    }
    let target = member(db, ws, account).await?;
    guard_owner(&target)?;
    let mut model: membership::ActiveModel = target.membership.into();
    model.role = Set(role.as_str().into());
    model.updated_at = Set(crate::db::now());
    let membership = model.update(db).await?;
    Ok(Member {
        membership,
        account: target.account,
    })
}

/// Removes a member (the row stays, `removed`, so a later invitation can reuse it).
pub async fn remove_member(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    account: &Uuid,
) -> ApiResult<()> {
    let target = member(db, ws, account).await?;
    guard_owner(&target)?;
    let mut model: membership::ActiveModel = target.membership.into();
    model.status = Set("removed".into());
    model.updated_at = Set(crate::db::now());
    model.update(db).await?;
    Ok(())
}

/// Adds (or re-activates) a membership.
pub async fn add_member(
    db: &impl ConnectionTrait,
    ws: &Uuid,
    account: &str,
    role: Role,
    invited_by: Option<String>,
) -> ApiResult<()> {
    let now = crate::db::now();
    let existing = membership::Entity::find()
        .filter(membership::Column::WorkspaceUuid.eq(ws.to_string()))
        .filter(membership::Column::AccountUuid.eq(account))
        .one(db)
        .await?;
    match existing {
        Some(row) if row.status == "active" => {
            Err(ApiError::conflict("The account is already a member"))
        }
        Some(row) => {
            let mut model: membership::ActiveModel = row.into();
            model.role = Set(role.as_str().into());
            model.status = Set("active".into());
            model.invited_by_account_uuid = Set(invited_by);
            model.joined_at = Set(Some(now));
            model.updated_at = Set(now);
            model.update(db).await?;
            Ok(())
        }
        None => {
            membership::ActiveModel {
                uuid: Set(Uuid::new_v4().to_string()),
                workspace_uuid: Set(ws.to_string()),
                account_uuid: Set(account.to_string()),
                role: Set(role.as_str().into()),
                status: Set("active".into()),
                invited_by_account_uuid: Set(invited_by),
                joined_at: Set(Some(now)),
                created_at: Set(now),
                updated_at: Set(now),
            }
            .insert(db)
            .await?;
            Ok(())
        }
    }
}
