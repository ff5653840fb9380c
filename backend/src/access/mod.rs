//! Who is calling and what they may do: credentials and their resolution (sessions, API
//! keys, the global key), passwords and login limits, permissions and roles, the access
//! rule of an operation and the request context every operation receives.
//!
//! The layer sits below the catalog and every resource: it imports storage and the shared
//! base only.

mod context;
mod identity;
mod key_cache;
pub mod login_limit;
pub mod lookup;
pub mod password;
mod permission;
mod rule;
pub mod secrets;
pub mod sessions;

pub use context::{Credentials, Principal, RequestCtx, SessionToken, WorkspaceCtx};
pub use identity::Identity;
pub use key_cache::INVALIDATION_CHANNEL;
pub use permission::{Permission, PermissionSet, Role};
pub use rule::Access;
