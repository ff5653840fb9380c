//! Accounts: first-run initialization, login sessions, password changes, account info.

pub mod dto;
pub mod ops;
pub mod service;
