//! Who is calling and what they may do: permissions, roles, the request context.

mod context;
mod permission;

pub use context::{Credentials, Principal, RequestCtx, SessionToken, WorkspaceCtx};
pub use permission::{Permission, PermissionSet, Role};
