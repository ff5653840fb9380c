//! The stable machine-readable error codes (SPEC §4). Extend; never rename.

use actix_web::http::StatusCode;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Declares every code once: its variant, wire name, HTTP status and default English
/// message (translations are keyed by that message).
macro_rules! error_codes {
    ($($variant:ident = $name:literal, $status:ident, $message:literal;)+) => {
        /// Every error code the API can answer with, and its HTTP status (the one mapping).
        // The wire names are the variants in snake_case (a test checks `as_str` agrees).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($variant,)+
        }

        impl ErrorCode {
            /// All codes, in declaration order (for docs and translation tests).
            pub const ALL: &'static [ErrorCode] = &[$(Self::$variant,)+];

            pub fn status(self) -> StatusCode {
                match self {
                    $(Self::$variant => StatusCode::$status,)+
                }
            }

            /// The snake_case name, as serialized.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $name,)+
                }
            }

            /// The default English message; translations are keyed by it.
            pub fn default_message(self) -> &'static str {
                match self {
                    $(Self::$variant => $message,)+
                }
            }
        }
    };
}

error_codes! {
    InvalidRequest = "invalid_request", BAD_REQUEST, "Invalid request";
    InvalidJson = "invalid_json", BAD_REQUEST, "Malformed JSON body";
    PayloadTooLarge = "payload_too_large", PAYLOAD_TOO_LARGE, "Request body is too large";
    InvalidAuthentication = "invalid_authentication", UNAUTHORIZED, "Invalid authentication credentials";
    PermissionDenied = "permission_denied", FORBIDDEN, "Permission denied";
    WorkspaceRequired = "workspace_required", BAD_REQUEST, "A Workspace is required";
    ResourceNotFound = "resource_not_found", NOT_FOUND, "Resource not found";
    MethodNotAllowed = "method_not_allowed", METHOD_NOT_ALLOWED, "Method not allowed";
    Conflict = "conflict", CONFLICT, "The request conflicts with the current state";
    RateLimited = "rate_limited", TOO_MANY_REQUESTS, "Too many requests, please retry later";
    EditionLimit = "edition_limit", FORBIDDEN, "Not available in this edition";
    InvalidLanguage = "invalid_language", BAD_REQUEST, "Unsupported language";
    InvalidApiKey = "invalid_api_key", BAD_REQUEST, "Invalid API key settings";
    ProviderHasModels = "provider_has_models", CONFLICT, "The provider still has models";
    DefaultPipelineExists = "default_pipeline_exists", CONFLICT, "A default pipeline already exists";
    PipelineInUse = "pipeline_in_use", CONFLICT, "The pipeline is used by bot routes";
    SessionBusy = "session_busy", CONFLICT, "The session is busy with a running task";
    ModelTestFailed = "model_test_failed", BAD_GATEWAY, "The model test failed";
    UpstreamError = "upstream_error", BAD_GATEWAY, "The upstream service failed";
    Unavailable = "unavailable", SERVICE_UNAVAILABLE, "Service unavailable";
    InternalError = "internal_error", INTERNAL_SERVER_ERROR, "Internal server error";
    LastOwnerRequired = "last_owner_required", BAD_REQUEST, "The Workspace owner cannot be changed or removed";
    InvitationInvalid = "invitation_invalid", BAD_REQUEST, "Invalid or expired invitation";
    McpStdioDisabled = "mcp_stdio_disabled", FORBIDDEN, "Stdio MCP servers are disabled on this instance";
    McpStdioCommandNotAllowed = "mcp_stdio_command_not_allowed", FORBIDDEN, "This command is not allowed for stdio MCP servers";
    InvalidPluginPackage = "invalid_plugin_package", BAD_REQUEST, "Invalid plugin package";
    PluginSourceUnavailable = "plugin_source_unavailable", BAD_REQUEST, "This install source is not available on this host";
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
