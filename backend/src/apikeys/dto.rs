//! API key shapes.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use crate::catalog::PageInfo;
use crate::entities::api_key;

/// An API key as listed (never its secret).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ApiKey {
    pub id: i32,
    pub uuid: String,
    pub workspace_uuid: String,
    pub name: String,
    pub description: String,
    pub scopes: Vec<String>,
    /// `active` or `revoked`.
    pub status: String,
    pub expires_at: Option<DateTime<Utc>>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    pub created_by_account_uuid: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Whether `key` carries the secret (only in the create answer).
    pub secret_available: bool,
}

impl From<api_key::Model> for ApiKey {
    fn from(m: api_key::Model) -> Self {
        let scopes = m
            .scopes
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        Self {
            id: m.id,
            uuid: m.uuid,
            workspace_uuid: m.workspace_uuid,
            name: m.name,
            description: m.description,
            scopes,
            status: m.status,
            expires_at: m.expires_at,
            last_used_at: m.last_used_at,
            revoked_at: m.revoked_at,
            created_by_account_uuid: m.created_by_account_uuid,
            created_at: m.created_at,
            updated_at: m.updated_at,
            secret_available: false,
        }
    }
}

/// A just-created key, with its secret.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyWithSecret {
    #[serde(flatten)]
    pub key: ApiKey,
    /// The `lbk_…` secret, shown only once.
    #[serde(rename = "key")]
    pub secret: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedApiKey {
    pub key: ApiKeyWithSecret,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyEnvelope {
    pub key: ApiKey,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyList {
    pub keys: Vec<ApiKey>,
    #[serde(flatten)]
    pub page: PageInfo,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = CreateApiKey)]
pub struct CreateApiKeyBody {
    #[validate(length(min = 1, max = 255))]
    pub name: String,
    #[serde(default)]
    #[validate(length(max = 512))]
    pub description: Option<String>,
    /// Permission names; omitted → all of the creator's current permissions.
    #[validate(length(max = 32))]
    pub scopes: Option<Vec<String>>,
    /// RFC 3339; must be in the future.
    pub expires_at: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
#[schema(as = UpdateApiKey)]
pub struct UpdateApiKeyBody {
    #[validate(length(min = 1, max = 255))]
    pub name: Option<String>,
    #[validate(length(max = 512))]
    pub description: Option<String>,
}
