//! The request context every operation receives, whatever the transport.

use std::net::IpAddr;

use uuid::Uuid;

use super::{Permission, PermissionSet, Role};
use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::i18n::Language;

/// The raw credentials of a request, as read by a transport.
#[derive(Debug, Clone, Default)]
pub struct Credentials {
    /// `X-API-Key`.
    pub api_key: Option<String>,
    /// The value after `Bearer ` in `Authorization`.
    pub bearer: Option<String>,
    /// `X-Workspace-Id`, a candidate for session tokens only.
    pub workspace_id: Option<String>,
}

/// A session token held for the request (`check-token` answers with it); never printed.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionToken(pub String);

impl std::fmt::Debug for SessionToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionToken(***)")
    }
}

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    Anonymous,
    /// A logged-in account, through a session token (only its hash is kept).
    Account {
        account_uuid: Uuid,
        session_hash: String,
        token: SessionToken,
    },
    /// A Workspace API key.
    ApiKey {
        key_id: i32,
        key_uuid: String,
        created_by: Option<Uuid>,
        scopes: PermissionSet,
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
    },
    /// The instance-wide key from `LANGBOT_GLOBAL_API_KEY`.
    GlobalKey,
}

impl Principal {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Anonymous => "anonymous",
            Self::Account { .. } => "account",
            Self::ApiKey { .. } => "api_key",
            Self::GlobalKey => "global_key",
        }
    }
}

/// The Workspace an operation runs in, with the caller's effective permissions.
#[derive(Debug, Clone)]
pub struct WorkspaceCtx {
    pub uuid: Uuid,
    pub permissions: PermissionSet,
    /// The caller's membership role (session principals only).
    pub role: Option<Role>,
    pub language: Language,
}

impl WorkspaceCtx {
    pub fn require(&self, permission: Permission) -> ApiResult<()> {
        if self.permissions.contains(permission) {
            Ok(())
        } else {
            Err(ApiError::new(ErrorCode::PermissionDenied)
                .msg(format!(
                    "Missing Workspace permission: {}",
                    permission.as_str()
                ))
                .details(serde_json::json!({ "permission": permission.as_str() })))
        }
    }
}

/// What an operation body knows about its request.
#[derive(Debug, Clone)]
pub struct RequestCtx {
    pub request_id: String,
    pub principal: Principal,
    pub workspace: Option<WorkspaceCtx>,
    pub client_ip: Option<IpAddr>,
    /// Set by transports that never show secrets (MCP), whatever the caller's permissions.
    pub conceal_secrets: bool,
}

impl RequestCtx {
    pub fn anonymous(request_id: String, client_ip: Option<IpAddr>) -> Self {
        Self {
            request_id,
            principal: Principal::Anonymous,
            workspace: None,
            client_ip,
            conceal_secrets: false,
        }
    }

    /// The Workspace context; the catalog guarantees it for Workspace-scoped operations.
    pub fn workspace(&self) -> ApiResult<&WorkspaceCtx> {
        self.workspace
            .as_ref()
            .ok_or_else(|| ApiError::new(ErrorCode::WorkspaceRequired))
    }

    /// The calling account, or 401 for other principals.
    pub fn account(&self) -> ApiResult<Uuid> {
        match &self.principal {
            Principal::Account { account_uuid, .. } => Ok(*account_uuid),
            _ => Err(ApiError::unauthenticated()),
        }
    }

    pub fn language(&self) -> Language {
        self.workspace
            .as_ref()
            .map(|w| w.language)
            .unwrap_or_default()
    }
}
