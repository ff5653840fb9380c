//! LangBot features this server does not have — knowledge bases, skills, the assistant, the
//! marketplace, Box (the sandbox), background tasks, the legacy-pipeline migration, release
//! checks and user feedback — answered the way LangBot answers "none" or "not available", so
//! its web UI renders those pages and enables its create buttons instead of failing on a 404.
//! Each answer is a real, Workspace-scoped read: there is never anything to list.

mod dto;
pub mod marketplace;
pub mod ops;

pub use dto::*;
