//! Identity: turning credentials into a principal and a Workspace context (SPEC §5.2).
//!
//! API keys resolve from an in-process cache (≤5 s) so an authenticated request costs no
//! database round trip; any change that affects a key (revoke, role change, member removal,
//! language) publishes an invalidation through the session store, which every replica obeys.

mod cache;
pub mod login_limit;
pub mod password;
pub mod secrets;
pub mod sessions;

use std::str::FromStr;

use uuid::Uuid;

pub use cache::{IdentityCache, INVALIDATION_CHANNEL};

use crate::access::{
    Credentials, PermissionSet, Principal, RequestCtx, Role, SessionToken, WorkspaceCtx,
};
use crate::catalog::Access;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// The kind of credential a request presents.
enum Presented<'a> {
    Session(&'a str),
    ApiKey(&'a str),
    GlobalKey,
}

/// Applies the resolution order: `X-API-Key` wins; then `Authorization: Bearer` by prefix.
fn classify<'a>(state: &AppState, credentials: &'a Credentials) -> ApiResult<Presented<'a>> {
    let global = state
        .settings
        .api
        .global_api_key
        .as_deref()
        .filter(|k| !k.is_empty());
    let is_global = |value: &str| global.is_some_and(|g| secrets::equal(value, g));
    if let Some(key) = credentials.api_key.as_deref() {
        if key.starts_with(secrets::API_KEY_PREFIX) {
            return Ok(Presented::ApiKey(key));
        }
        return if is_global(key) {
            Ok(Presented::GlobalKey)
        } else {
            Err(ApiError::unauthenticated())
        };
    }
    let Some(bearer) = credentials.bearer.as_deref() else {
        return Err(ApiError::unauthenticated().msg("Authentication required"));
    };
    if bearer.starts_with(secrets::API_KEY_PREFIX) {
        Ok(Presented::ApiKey(bearer))
    } else if bearer.starts_with(secrets::SESSION_PREFIX) {
        Ok(Presented::Session(bearer))
    } else if is_global(bearer) {
        Ok(Presented::GlobalKey)
    } else {
        Err(ApiError::unauthenticated())
    }
}

/// Authenticates `credentials` for an operation with the given access rule.
pub async fn authenticate(
    state: &AppState,
    access: Access,
    credentials: &Credentials,
    mut ctx: RequestCtx,
) -> ApiResult<RequestCtx> {
    if access == Access::OptionalSession
        && credentials.api_key.is_none()
        && credentials.bearer.is_none()
    {
        return Ok(ctx);
    }
    let presented = classify(state, credentials)?;
    match presented {
        Presented::Session(token) => {
            let (account_uuid, session_hash) = session_principal(state, token).await?;
            if access.has_workspace() {
                ctx.workspace = Some(
                    session_workspace(state, &account_uuid, credentials.workspace_id.as_deref())
                        .await?,
                );
            }
            ctx.principal = Principal::Account {
                account_uuid,
                session_hash,
                token: SessionToken(token.to_string()),
            };
        }
        // Keys never reach account or member operations.
        Presented::ApiKey(_) | Presented::GlobalKey if access != Access::Workspace => {
            return Err(ApiError::unauthenticated().msg("This operation needs a session token"));
        }
        Presented::ApiKey(token) => {
            let key = state.identity.api_key(state, token).await?;
            ctx.workspace = Some(WorkspaceCtx {
                uuid: key.workspace_uuid,
                permissions: key.effective,
                role: None,
                language: key.language,
            });
            ctx.principal = Principal::ApiKey {
                key_id: key.id,
                key_uuid: key.uuid.clone(),
                created_by: key.created_by,
                scopes: key.scopes,
                expires_at: key.expires_at,
            };
        }
        Presented::GlobalKey => {
            let workspace = state.identity.sole_workspace(state).await?;
            ctx.workspace = Some(WorkspaceCtx {
                uuid: workspace,
                permissions: PermissionSet::all(),
                role: None,
                language: state.identity.language(state, workspace).await?,
            });
            ctx.principal = Principal::GlobalKey;
        }
    }
    Ok(ctx)
}

/// The account behind a session token, or 401.
async fn session_principal(state: &AppState, token: &str) -> ApiResult<(Uuid, String)> {
    if !secrets::well_formed(token, secrets::SESSION_PREFIX) {
        return Err(ApiError::unauthenticated());
    }
    let hash = secrets::hash(token);
    let record = sessions::find(state.store.as_ref(), &hash)
        .await?
        .ok_or_else(ApiError::unauthenticated)?;
    let account = Uuid::from_str(&record.account_uuid).map_err(|_| ApiError::unauthenticated())?;
    Ok((account, hash))
}

/// The Workspace a session user works in: the `X-Workspace-Id` one (an active membership,
/// else 404), or their first by creation.
async fn session_workspace(
    state: &AppState,
    account: &Uuid,
    selector: Option<&str>,
) -> ApiResult<WorkspaceCtx> {
    let memberships = crate::workspaces::service::active_memberships(&state.db, account).await?;
    let chosen = match selector {
        Some(raw) => {
            let wanted = Uuid::from_str(raw.trim()).map_err(|_| ApiError::not_found())?;
            memberships
                .into_iter()
                .find(|(ws, _)| ws.uuid == wanted.to_string())
        }
        None => memberships.into_iter().next(),
    };
    let (workspace, role) = chosen.ok_or_else(ApiError::not_found)?;
    let uuid = Uuid::from_str(&workspace.uuid).map_err(ApiError::internal)?;
    Ok(WorkspaceCtx {
        uuid,
        permissions: role.permissions(),
        role: Some(role),
        language: state.identity.language(state, uuid).await?,
    })
}

/// What a Workspace role string from the database means (unknown → no permissions).
pub fn parse_role(role: &str) -> Option<Role> {
    Role::parse(role)
}
