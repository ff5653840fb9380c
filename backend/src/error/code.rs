//! The stable machine-readable error codes (SPEC §4). Extend; never rename.

use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every error code the API can answer with, and its HTTP status (the one mapping).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    InvalidRequest,
    InvalidJson,
    PayloadTooLarge,
    InvalidAuthentication,
    PermissionDenied,
    WorkspaceRequired,
    ResourceNotFound,
    MethodNotAllowed,
    Conflict,
    RateLimited,
    EditionLimit,
    InvalidLanguage,
    InvalidApiKey,
    ProviderHasModels,
    DefaultPipelineExists,
    PipelineInUse,
    SessionBusy,
    ModelTestFailed,
    UpstreamError,
    Unavailable,
    InternalError,
    LastOwnerRequired,
    InvitationInvalid,
}

impl ErrorCode {
    /// All codes, in declaration order (for docs and translation tests).
    pub const ALL: &'static [ErrorCode] = &[
        Self::InvalidRequest,
        Self::InvalidJson,
        Self::PayloadTooLarge,
        Self::InvalidAuthentication,
        Self::PermissionDenied,
        Self::WorkspaceRequired,
        Self::ResourceNotFound,
        Self::MethodNotAllowed,
        Self::Conflict,
        Self::RateLimited,
        Self::EditionLimit,
        Self::InvalidLanguage,
        Self::InvalidApiKey,
        Self::ProviderHasModels,
        Self::DefaultPipelineExists,
        Self::PipelineInUse,
        Self::SessionBusy,
        Self::ModelTestFailed,
        Self::UpstreamError,
        Self::Unavailable,
        Self::InternalError,
        Self::LastOwnerRequired,
        Self::InvitationInvalid,
    ];

    pub fn status(self) -> StatusCode {
        match self {
            Self::InvalidRequest
            | Self::InvalidJson
            | Self::WorkspaceRequired
            | Self::InvalidLanguage
            | Self::InvalidApiKey
            | Self::LastOwnerRequired
            | Self::InvitationInvalid => StatusCode::BAD_REQUEST,
            Self::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Self::InvalidAuthentication => StatusCode::UNAUTHORIZED,
            Self::PermissionDenied | Self::EditionLimit => StatusCode::FORBIDDEN,
            Self::ResourceNotFound => StatusCode::NOT_FOUND,
            Self::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Self::Conflict
            | Self::ProviderHasModels
            | Self::DefaultPipelineExists
            | Self::PipelineInUse
            | Self::SessionBusy => StatusCode::CONFLICT,
            Self::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            Self::ModelTestFailed | Self::UpstreamError => StatusCode::BAD_GATEWAY,
            Self::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Self::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The snake_case name, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidRequest => "invalid_request",
            Self::InvalidJson => "invalid_json",
            Self::PayloadTooLarge => "payload_too_large",
            Self::InvalidAuthentication => "invalid_authentication",
            Self::PermissionDenied => "permission_denied",
            Self::WorkspaceRequired => "workspace_required",
            Self::ResourceNotFound => "resource_not_found",
            Self::MethodNotAllowed => "method_not_allowed",
            Self::Conflict => "conflict",
            Self::RateLimited => "rate_limited",
            Self::EditionLimit => "edition_limit",
            Self::InvalidLanguage => "invalid_language",
            Self::InvalidApiKey => "invalid_api_key",
            Self::ProviderHasModels => "provider_has_models",
            Self::DefaultPipelineExists => "default_pipeline_exists",
            Self::PipelineInUse => "pipeline_in_use",
            Self::SessionBusy => "session_busy",
            Self::ModelTestFailed => "model_test_failed",
            Self::UpstreamError => "upstream_error",
            Self::Unavailable => "unavailable",
            Self::InternalError => "internal_error",
            Self::LastOwnerRequired => "last_owner_required",
            Self::InvitationInvalid => "invitation_invalid",
        }
    }

    /// The default English message; translations are keyed by it.
    pub fn default_message(self) -> &'static str {
        match self {
            Self::InvalidRequest => "Invalid request",
            Self::InvalidJson => "Malformed JSON body",
            Self::PayloadTooLarge => "Request body is too large",
            Self::InvalidAuthentication => "Invalid authentication credentials",
            Self::PermissionDenied => "Permission denied",
            Self::WorkspaceRequired => "A Workspace is required",
            Self::ResourceNotFound => "Resource not found",
            Self::MethodNotAllowed => "Method not allowed",
            Self::Conflict => "The request conflicts with the current state",
            Self::RateLimited => "Too many requests, please retry later",
            Self::EditionLimit => "Not available in this edition",
            Self::InvalidLanguage => "Unsupported language",
            Self::InvalidApiKey => "Invalid API key settings",
            Self::ProviderHasModels => "The provider still has models",
            Self::DefaultPipelineExists => "A default pipeline already exists",
            Self::PipelineInUse => "The pipeline is used by bot routes",
            Self::SessionBusy => "The session is busy with a running task",
            Self::ModelTestFailed => "The model test failed",
            Self::UpstreamError => "The upstream service failed",
            Self::Unavailable => "Service unavailable",
            Self::InternalError => "Internal server error",
            Self::LastOwnerRequired => "The Workspace owner cannot be changed or removed",
            Self::InvitationInvalid => "Invalid or expired invitation",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_serde() -> Result<(), serde_json::Error> {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code)?,
                serde_json::json!(code.as_str())
            );
        }
        Ok(())
    }
}
