//! Account request and response bodies.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

/// Credentials for `user/init` and `user/auth`.
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct Credentials {
    /// The login email.
    #[validate(length(min = 3, max = 320), email)]
    pub user: String,
    #[validate(length(min = 1, max = 1024))]
    pub password: String,
}

/// `user/auth` credentials: the email is not validated for shape (a wrong one simply fails).
#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct LoginRequest {
    #[validate(length(min = 1, max = 320))]
    pub user: String,
    #[validate(length(min = 1, max = 1024))]
    pub password: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct InitStatus {
    pub initialized: bool,
}

/// A session token (`lbs_…`): send it as `Authorization: Bearer`.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    pub token: String,
}

#[derive(Debug, Deserialize, ToSchema, Validate)]
#[serde(deny_unknown_fields)]
pub struct ChangePasswordRequest {
    #[validate(length(min = 1, max = 1024))]
    pub current_password: String,
    #[validate(length(min = 1, max = 1024))]
    pub new_password: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AccountInfo {
    pub account_uuid: String,
    /// The login / display name (the email at creation).
    pub user: String,
    pub email: String,
    pub account_type: String,
    pub has_password: bool,
    pub created_at: chrono::DateTime<chrono::Utc>,
}

/// Which login methods the login page offers (`GET /user/account-info`, LangBot's shape):
/// before the first account only `initialized: false`.
#[derive(Debug, Serialize, ToSchema)]
pub struct LoginMethods {
    pub initialized: bool,
    /// Password login (the only method this server has).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_login_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space_login_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authenticated_invitation_acceptance_enabled: Option<bool>,
    /// Invitation links register new accounts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invitation_registration_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passkey_login_enabled: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passkey_supported: Option<bool>,
}
