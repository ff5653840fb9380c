//! Placeholder input/output types for operations without path, query, body or data.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{RefOr, Schema};
use utoipa::{IntoParams, PartialSchema, ToSchema};
use validator::Validate;

/// No path or query parameters.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub struct NoParams {}

impl IntoParams for NoParams {
    fn into_params(
        _: impl Fn() -> Option<utoipa::openapi::path::ParameterIn>,
    ) -> Vec<utoipa::openapi::path::Parameter> {
        Vec::new()
    }
}

impl Validate for NoParams {
    fn validate(&self) -> Result<(), validator::ValidationErrors> {
        Ok(())
    }
}

/// No request body; whatever is sent is ignored.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoBody;

impl<'de> Deserialize<'de> for NoBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d).map(|_| NoBody)
    }
}

impl Validate for NoBody {
    fn validate(&self) -> Result<(), validator::ValidationErrors> {
        Ok(())
    }
}

impl PartialSchema for NoBody {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(Type::Null).into()
    }
}

impl ToSchema for NoBody {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("NoBody")
    }
}

/// `data: null`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Null;

impl Serialize for Null {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_none()
    }
}

impl PartialSchema for Null {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(Type::Null).into()
    }
}

impl ToSchema for Null {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("Null")
    }
}
