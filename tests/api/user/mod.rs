//! Accounts and sessions: `/api/v1/user/*`.

mod auth;
mod init;
mod sessions;
