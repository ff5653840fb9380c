//! `/api/v1/mcp`: a Workspace's external MCP servers, the tool sources its agents call.

pub mod dto;
pub mod ops;
pub mod service;
