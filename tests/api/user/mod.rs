//! Accounts and sessions: `/api/v1/user/*`.

mod auth;
mod cached_principals;
mod init;
mod sessions;
