//! Identity: resolving credentials into a principal and a Workspace context.

use crate::access::{Credentials, RequestCtx};
use crate::catalog::Access;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Authenticates `credentials` for an operation with the given access rule.
pub async fn authenticate(
    _state: &AppState,
    _access: Access,
    _credentials: &Credentials,
    _base: RequestCtx,
) -> ApiResult<RequestCtx> {
    // No account, session or key exists before the identity capability lands.
    Err(ApiError::unauthenticated())
}
