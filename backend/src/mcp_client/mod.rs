//! The MCP client: external MCP servers as tool sources, through the official Rust SDK
//! (`rmcp`) for streamable HTTP and stdio, and a small legacy-SSE transport plugged into it.

pub mod config;
pub mod hub;
pub mod session;
pub mod sse;
pub mod status;

pub use config::{check_stdio, Mode, ServerConfig};
pub use hub::{Env, McpHub, Slot, SlotState};
pub use session::{CallOutcome, ToolInfo};
pub use status::RuntimeInfo;
