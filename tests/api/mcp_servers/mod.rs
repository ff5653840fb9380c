//! External MCP servers: `/api/v1/mcp/servers` — create, list, get, update, delete; the
//! validation table and the name rule; header and env secrets masked as `***` and kept on
//! update; the stdio policy; `test` of a saved server and of a draft; resources; the runtime
//! status of each server; and the MCP tools on our own `/mcp` (`list_mcp_servers`, …).

mod crud;
mod mcp_tools;
mod runtime;
mod secrets;
mod stdio;
mod validation;
