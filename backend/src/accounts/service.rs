//! Account storage and the rules around it.

use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait,
    QueryFilter,
};
use uuid::Uuid;

use crate::entities::{instance_metadata, user};
use crate::error::{ApiError, ApiResult};

/// Logins are case-insensitive and ignore surrounding spaces.
pub fn normalize_email(email: &str) -> String {
    email.trim().to_lowercase()
}

pub async fn is_initialized(db: &impl ConnectionTrait) -> ApiResult<bool> {
    Ok(user::Entity::find().count(db).await? > 0)
}

pub async fn find_by_email(
    db: &impl ConnectionTrait,
    email: &str,
) -> ApiResult<Option<user::Model>> {
    Ok(user::Entity::find()
        .filter(user::Column::NormalizedEmail.eq(normalize_email(email)))
        .one(db)
        .await?)
}

pub async fn find(db: &impl ConnectionTrait, account: &Uuid) -> ApiResult<user::Model> {
    user::Entity::find()
        .filter(user::Column::Uuid.eq(account.to_string()))
        .filter(user::Column::Status.eq("active"))
        .one(db)
        .await?
        .ok_or_else(|| ApiError::unauthenticated().msg("Account not found"))
}

/// Inserts an active local account with an already hashed password.
pub async fn insert(
    db: &impl ConnectionTrait,
    email: &str,
    password_hash: String,
) -> ApiResult<user::Model> {
    let now = crate::db::now();
    let normalized = normalize_email(email);
    let model = user::ActiveModel {
        uuid: Set(Uuid::new_v4().to_string()),
        user: Set(normalized.clone()),
        normalized_email: Set(normalized),
        password: Set(password_hash),
        status: Set("active".into()),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    };
    Ok(model.insert(db).await?)
}

/// Claims the one-time initialization inside the caller's transaction; a second claim
/// (including a concurrent one) fails on the primary key and answers 409.
pub async fn claim_initialization(db: &impl ConnectionTrait) -> ApiResult<()> {
    let marker = instance_metadata::ActiveModel {
        key: Set("initialized_at".into()),
        value: Set(crate::db::now().to_rfc3339()),
    };
    instance_metadata::Entity::insert(marker)
        .exec_without_returning(db)
        .await
        .map_err(|e| match ApiError::from(e) {
            conflict if conflict.code == crate::error::ErrorCode::Conflict => {
                ApiError::conflict("The system is already initialized")
            }
            other => other,
        })?;
    Ok(())
}

pub async fn set_password(
    db: &impl ConnectionTrait,
    account: user::Model,
    password_hash: String,
) -> ApiResult<()> {
    let mut model: user::ActiveModel = account.into();
    model.password = Set(password_hash);
    model.updated_at = Set(crate::db::now());
    model.update(db).await?;
    Ok(())
}
