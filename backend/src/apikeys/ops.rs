//! `/api/v1/apikeys`: list, create, get, update (name/description), delete (revoke).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;

use super::dto::{
    ApiKeyEnvelope, ApiKeyList, ApiKeyWithSecret, CreateApiKeyBody, CreatedApiKey, UpdateApiKeyBody,
};
use super::service::{self, NewKey};
use crate::access::{Access, Permission, PermissionSet, RequestCtx};
use crate::catalog::{Input, NoBody, NoParams, Null, OpMeta, Operation, PageQuery};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::state::AppState;

/// `{key_id}`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Path)]
pub struct KeyPath {
    pub key_id: i64,
}

fn invalid_key(message: String, field: &str) -> ApiError {
    ApiError::new(ErrorCode::InvalidApiKey)
        .msg(message.clone())
        .field(field, message)
}

/// `GET /apikeys`.
pub struct ListApiKeys;

impl Operation for ListApiKeys {
    const META: OpMeta = OpMeta::get("list_api_keys", "/apikeys")
        .tag("apikeys")
        .summary("The Workspace's API keys (revoked ones too)")
        .access(Access::SessionWorkspace)
        .permission(Permission::ApiKeyManage);
    type Path = NoParams;
    type Query = PageQuery;
    type Body = NoBody;
    type Output = ApiKeyList;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, PageQuery, NoBody>,
    ) -> ApiResult<ApiKeyList> {
        let (page, info) = input
            .query
            .slice(service::list(&state.db, ctx.workspace()?).await?);
        Ok(ApiKeyList {
            keys: page.into_iter().map(Into::into).collect(),
            page: info,
        })
    }
}

/// `POST /apikeys`.
pub struct CreateApiKey;

impl Operation for CreateApiKey {
    const META: OpMeta = OpMeta::post("create_api_key", "/apikeys")
        .tag("apikeys")
        .summary("Create an API key; the `lbk_` secret is shown once")
        .access(Access::SessionWorkspace)
        .permission(Permission::ApiKeyManage)
        .errors(&[ErrorCode::InvalidApiKey]);
    type Path = NoParams;
    type Query = NoParams;
    type Body = CreateApiKeyBody;
    type Output = CreatedApiKey;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<NoParams, NoParams, CreateApiKeyBody>,
    ) -> ApiResult<CreatedApiKey> {
        let ws = ctx.workspace()?;
        let body = input.body;
        let name = body.name.trim().to_string();
        if name.is_empty() {
            return Err(invalid_key("Name is required".into(), "name"));
        }
        let scopes = match body.scopes {
            None => ws.permissions,
            Some(names) => {
                let mut set = Vec::new();
                for name in &names {
                    set.push(Permission::parse(name).ok_or_else(|| {
                        invalid_key(format!("Unknown API key scope: {name}"), "scopes")
                    })?);
                }
                let requested: PermissionSet = set.into_iter().collect();
                if let Some(missing) = requested
                    .to_vec()
                    .into_iter()
                    .find(|p| !ws.permissions.contains(*p))
                {
                    return Err(ws
                        .require(missing)
                        .err()
                        .unwrap_or_else(|| ApiError::new(ErrorCode::PermissionDenied)));
                }
                requested
            }
        };
        let expires_at = match body.expires_at.as_deref() {
            None => None,
            Some(raw) => {
                let at = DateTime::parse_from_rfc3339(raw.trim())
                    .map_err(|_| {
                        invalid_key(
                            format!("expires_at is not an RFC 3339 time: {raw}"),
                            "expires_at",
                        )
                    })?
                    .with_timezone(&Utc);
                if at <= Utc::now() {
                    return Err(invalid_key(
                        "API key expiry must be in the future".into(),
                        "expires_at",
                    ));
                }
                Some(at)
            }
        };
        let new = NewKey {
            name,
            description: body.description.unwrap_or_default().trim().to_string(),
            scopes,
            expires_at,
        };
        let (row, secret) = service::create(&state.db, ws, &ctx.account()?, new).await?;
        let mut key: super::dto::ApiKey = row.into();
        key.secret_available = true;
        Ok(CreatedApiKey {
            key: ApiKeyWithSecret { key, secret },
        })
    }
}

/// `GET /apikeys/{key_id}`.
pub struct GetApiKey;

impl Operation for GetApiKey {
    const META: OpMeta = OpMeta::get("get_api_key", "/apikeys/{key_id}")
        .tag("apikeys")
        .summary("One API key")
        .access(Access::SessionWorkspace)
        .permission(Permission::ApiKeyManage);
    type Path = KeyPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = ApiKeyEnvelope;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<KeyPath, NoParams, NoBody>,
    ) -> ApiResult<ApiKeyEnvelope> {
        let row = service::get(&state.db, ctx.workspace()?, input.path.key_id).await?;
        Ok(ApiKeyEnvelope { key: row.into() })
    }
}

/// `PUT /apikeys/{key_id}`.
pub struct UpdateApiKey;

impl Operation for UpdateApiKey {
    const META: OpMeta = OpMeta::put("update_api_key", "/apikeys/{key_id}")
        .tag("apikeys")
        .summary("Rename or re-describe an API key (scopes and expiry are immutable)")
        .access(Access::SessionWorkspace)
        .permission(Permission::ApiKeyManage)
        .errors(&[ErrorCode::InvalidApiKey]);
    type Path = KeyPath;
    type Query = NoParams;
    type Body = UpdateApiKeyBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<KeyPath, NoParams, UpdateApiKeyBody>,
    ) -> ApiResult<Null> {
        let name = match input.body.name {
            Some(n) if n.trim().is_empty() => {
                return Err(invalid_key("Name is required".into(), "name"))
            }
            other => other.map(|n| n.trim().to_string()),
        };
        let description = input.body.description.map(|d| d.trim().to_string());
        service::update(
            &state.db,
            ctx.workspace()?,
            input.path.key_id,
            name,
            description,
        )
        .await?;
        Ok(Null)
    }
}

/// `DELETE /apikeys/{key_id}`: revoke.
pub struct DeleteApiKey;

impl Operation for DeleteApiKey {
    const META: OpMeta = OpMeta::delete("delete_api_key", "/apikeys/{key_id}")
        .tag("apikeys")
        .summary("Revoke an API key (it stays listed as revoked)")
        .access(Access::SessionWorkspace)
        .permission(Permission::ApiKeyManage);
    type Path = KeyPath;
    type Query = NoParams;
    type Body = NoBody;
    type Output = Null;

    async fn run(
        state: &AppState,
        ctx: &RequestCtx,
        input: Input<KeyPath, NoParams, NoBody>,
    ) -> ApiResult<Null> {
        service::revoke(&state.db, ctx.workspace()?, input.path.key_id).await?;
        state.identity.invalidate().await;
        Ok(Null)
    }
}
