//! Invitation storage: one-time `lbi_` tokens stored hashed, 7-day expiry.

use std::time::Duration;

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder,
};
use uuid::Uuid;

use crate::access::secrets;
use crate::access::{Role, WorkspaceCtx};
use crate::entities::workspace_invitation as invitation;
use crate::error::{ApiError, ApiResult, ErrorCode};

pub const INVITATION_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

fn invalid(reason: &'static str, status: &str) -> ApiError {
    ApiError::new(ErrorCode::InvitationInvalid)
        .msg(reason)
        .details(serde_json::json!({ "status": status }))
}

/// Marks overdue pending invitations of the Workspace as expired.
async fn expire_overdue(db: &impl ConnectionTrait, ws: &Uuid) -> ApiResult<()> {
    invitation::Entity::update_many()
        .col_expr(
            invitation::Column::Status,
            sea_orm::sea_query::Expr::value("expired"),
        )
        .filter(invitation::Column::WorkspaceUuid.eq(ws.to_string()))
        .filter(invitation::Column::Status.eq("pending"))
        .filter(invitation::Column::ExpiresAt.lte(crate::db::now()))
        .exec(db)
        .await?;
    Ok(())
}

pub async fn list_pending(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
) -> ApiResult<Vec<invitation::Model>> {
    expire_overdue(db, &ws.uuid).await?;
    Ok(invitation::Entity::find()
        .filter(invitation::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(invitation::Column::Status.eq("pending"))
        .order_by_asc(invitation::Column::CreatedAt)
        .order_by_asc(invitation::Column::Uuid)
        .all(db)
        .await?)
}

/// Creates an invitation (replacing a pending one for the same email); returns it and its token.
pub async fn create(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    email: &str,
    role: Role,
    created_by: &Uuid,
) -> ApiResult<(invitation::Model, String)> {
    let now = crate::db::now();
    invitation::Entity::update_many()
        .col_expr(
            invitation::Column::Status,
            sea_orm::sea_query::Expr::value("revoked"),
        )
        .col_expr(
            invitation::Column::RevokedAt,
            sea_orm::sea_query::Expr::value(now),
        )
        .filter(invitation::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .filter(invitation::Column::NormalizedEmail.eq(email))
        .filter(invitation::Column::Status.eq("pending"))
        .exec(db)
        .await?;
    let token = secrets::generate(secrets::INVITATION_PREFIX);
    let expires = now + chrono::Duration::from_std(INVITATION_TTL).map_err(ApiError::internal)?;
    let row = invitation::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        workspace_uuid: Set(ws.uuid.to_string()),
        normalized_email: Set(email.to_string()),
        role: Set(role.as_str().into()),
        token_hash: Set(secrets::hash(&token)),
        status: Set("pending".into()),
        expires_at: Set(expires),
        accepted_at: Set(None),
        revoked_at: Set(None),
        created_by_account_uuid: Set(created_by.to_string()),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok((row, token))
}

/// Revokes an invitation of this Workspace (idempotent); 404 when it is not one of ours.
pub async fn revoke(
    db: &impl ConnectionTrait,
    ws: &WorkspaceCtx,
    uuid: &Uuid,
) -> ApiResult<invitation::Model> {
    let row = invitation::Entity::find_by_id(uuid.to_string())
        .filter(invitation::Column::WorkspaceUuid.eq(ws.uuid.to_string()))
        .one(db)
        .await?
        .ok_or_else(ApiError::not_found)?;
    match row.status.as_str() {
        "revoked" => Ok(row),
        "accepted" => Err(ApiError::conflict("The invitation was already accepted")),
        _ => {
            let mut model: invitation::ActiveModel = row.into();
            model.status = Set("revoked".into());
            model.revoked_at = Set(Some(crate::db::now()));
            model.updated_at = Set(crate::db::now());
            Ok(model.update(db).await?)
        }
    }
}

/// The pending invitation behind a token; a clear 400 for anything else.
pub async fn find_pending(db: &impl ConnectionTrait, token: &str) -> ApiResult<invitation::Model> {
    if !secrets::well_formed(token, secrets::INVITATION_PREFIX) {
        return Err(invalid("Invalid or expired invitation", "invalid"));
    }
    let row = invitation::Entity::find()
        .filter(invitation::Column::TokenHash.eq(secrets::hash(token)))
        .one(db)
        .await?
        .ok_or_else(|| invalid("Invalid or expired invitation", "invalid"))?;
    match row.status.as_str() {
        "pending" if row.expires_at > crate::db::now() => Ok(row),
        "pending" | "expired" => Err(invalid("The invitation has expired", "expired")),
        "revoked" => Err(invalid("The invitation was revoked", "revoked")),
        _ => Err(invalid("The invitation was already used", "accepted")),
    }
}

pub async fn mark_accepted(db: &impl ConnectionTrait, row: invitation::Model) -> ApiResult<()> {
    let mut model: invitation::ActiveModel = row.into();
    model.status = Set("accepted".into());
    model.accepted_at = Set(Some(crate::db::now()));
    model.updated_at = Set(crate::db::now());
    model.update(db).await?;
    Ok(())
}
