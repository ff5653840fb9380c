//! One API error type: a stable code, a message, optional field errors and details.
//! It maps to HTTP once (here); MCP maps the same value to a tool error.

mod code;
pub mod request_local;

use std::borrow::Cow;

use actix_web::http::header;
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

pub use code::ErrorCode;

/// A field-level validation problem.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct FieldError {
    /// Path of the offending field, e.g. `trigger.access-control.mode`.
    pub field: String,
    pub message: String,
}

/// The error body of every failed request.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub msg: String,
    pub request_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<FieldError>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Object)]
    pub details: Option<serde_json::Value>,
}

/// The error every operation returns.
#[derive(Debug, thiserror::Error)]
#[error("{code:?}: {}", self.english())]
pub struct ApiError {
    pub code: ErrorCode,
    message: Option<Cow<'static, str>>,
    pub errors: Vec<FieldError>,
    pub details: Option<serde_json::Value>,
    pub retry_after_secs: Option<u64>,
    /// The cause of an internal error; logged, never sent.
    #[source]
    source: Option<anyhow::Error>,
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn new(code: ErrorCode) -> Self {
        Self {
            code,
            message: None,
            errors: Vec::new(),
            details: None,
            retry_after_secs: None,
            source: None,
        }
    }

    /// A specific English message (translated where the catalog has it).
    pub fn msg(mut self, message: impl Into<Cow<'static, str>>) -> Self {
        self.message = Some(message.into());
        self
    }

    pub fn details(mut self, details: serde_json::Value) -> Self {
        self.details = Some(details);
        self
    }

    pub fn field(mut self, field: impl Into<String>, message: impl Into<String>) -> Self {
        self.errors.push(FieldError {
            field: field.into(),
            message: message.into(),
        });
        self
    }

    pub fn retry_after(mut self, secs: u64) -> Self {
        self.retry_after_secs = Some(secs);
        self
    }

    pub fn invalid(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::InvalidRequest).msg(message)
    }

    pub fn not_found() -> Self {
        Self::new(ErrorCode::ResourceNotFound)
    }

    pub fn conflict(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::Conflict).msg(message)
    }

    pub fn unauthenticated() -> Self {
        Self::new(ErrorCode::InvalidAuthentication)
    }

    pub fn unavailable(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(ErrorCode::Unavailable).msg(message)
    }

    /// An unexpected failure: the cause is logged, the client sees `internal_error`.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        let mut e = Self::new(ErrorCode::InternalError);
        e.source = Some(cause.into());
        e
    }

    /// The message in English.
    pub fn english(&self) -> &str {
        self.message
            .as_deref()
            .unwrap_or(self.code.default_message())
    }

    /// The message in `lang`: the specific message where translated, else (outside English)
    /// the translated message of the code, so the language is always right.
    pub fn message_in(&self, lang: crate::i18n::Language) -> String {
        let english = self.english();
        let translated = lang.translate(english);
        if translated != english || lang == crate::i18n::Language::EnUs {
            return translated.to_string();
        }
        lang.translate(self.code.default_message()).to_string()
    }

    /// The response body, in the language of the current request.
    pub fn body(&self) -> ErrorBody {
        let (request_id, lang) = request_local::current();
        ErrorBody {
            code: self.code,
            msg: self.message_in(lang),
            request_id,
            errors: (!self.errors.is_empty()).then(|| self.errors.clone()),
            details: self.details.clone(),
        }
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> actix_web::http::StatusCode {
        self.code.status()
    }

    fn error_response(&self) -> HttpResponse {
        if self.code.status().is_server_error() {
            match &self.source {
                Some(cause) => {
                    tracing::error!(error.code = self.code.as_str(), error.cause = ?cause, "request failed")
                }
                None => tracing::warn!(
                    error.code = self.code.as_str(),
                    error.message = self.english(),
                    "request failed"
                ),
            }
        } else {
            tracing::debug!(
                error.code = self.code.as_str(),
                error.message = self.english(),
                "request refused"
            );
        }
        let mut response = HttpResponse::build(self.code.status());
        if let Some(secs) = self.retry_after_secs {
            response.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        let mut response = response.json(self.body());
        if self
            .source
            .as_ref()
            .and_then(|cause| cause.downcast_ref::<sea_orm::DbErr>())
            .is_some_and(is_connection_error)
        {
            // The database went away: `db_gate` has it probed.
            response
                .extensions_mut()
                .insert(crate::db_health::DbUnreachable);
        }
        response
    }
}

impl From<sea_orm::DbErr> for ApiError {
    fn from(err: sea_orm::DbErr) -> Self {
        match err.sql_err() {
            Some(sea_orm::SqlErr::UniqueConstraintViolation(_)) => {
                Self::conflict("A resource with the same identity already exists")
            }
            // A concurrent change removed (or still uses) a referenced resource.
            Some(sea_orm::SqlErr::ForeignKeyConstraintViolation(_)) => {
                Self::conflict("A referenced resource was changed concurrently; retry")
            }
            // PostgreSQL text cannot hold NUL; such input is the caller's mistake.
            _ if err.to_string().contains("invalid byte sequence") => {
                let mut e = Self::invalid("Text must not contain NUL characters");
                e.source = Some(err.into());
                e
            }
            _ if err.to_string().contains("database is locked") => {
                let mut e = Self::unavailable("The database is busy, please retry").retry_after(1);
                e.source = Some(err.into());
                e
            }
            _ if is_connection_error(&err) => {
                let mut e = Self::unavailable("The database is unavailable");
                e.source = Some(err.into());
                e
            }
            _ => Self::internal(err),
        }
    }
}

/// The database is unreachable, or went away under a query (restarted, shutting down,
/// starting up): the request may succeed later, so it is a 503, not a 500.
pub fn is_connection_error(err: &sea_orm::DbErr) -> bool {
    use sea_orm::{DbErr, RuntimeErr};
    let sqlx = match err {
        DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => return true,
        DbErr::Query(RuntimeErr::SqlxError(e)) | DbErr::Exec(RuntimeErr::SqlxError(e)) => e,
        _ => return false,
    };
    match sqlx {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // SQLSTATE class 08 (connection exception), 57P01-57P03 (the server is shutting down
        // or starting up).
        sqlx::Error::Database(db) => db.code().is_some_and(|c| {
            c.starts_with("08") || matches!(c.as_ref(), "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

impl From<crate::session_store::StoreError> for ApiError {
    fn from(err: crate::session_store::StoreError) -> Self {
        let mut e = Self::unavailable("The session store is unavailable");
        e.source = Some(err.into());
        e
    }
}
