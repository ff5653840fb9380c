//! API keys: `/api/v1/apikeys`, and keys (and the global key) as credentials.

mod authentication;
mod keys;
