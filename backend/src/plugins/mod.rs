//! The plugin host: LangBot's plugin runtime (`lbp rt` from the `langbot-plugin` package)
//! runs the plugins; this host supervises it, speaks its control protocol, keeps what is
//! installed (and the plugins' storage) in the database, offers the plugins' Tool components
//! to the agent and answers the plugins' calls back (the LangBot API for plugins).
//!
//! `frame` (stdio framing) and `wire` (the envelope) are the protocol; `conn` one control
//! connection; `runtime` the supervised runtime of one Workspace; `hub` this replica's
//! runtimes; `host` the LangBot API answered to plugins; `package` the `.lbpkg` format;
//! `service` storage; `ops`/`dto` the catalog operations.

pub mod config_files;
pub mod conn;
pub mod dto;
pub mod frame;
pub mod host;
pub mod hub;
pub mod ops;
pub mod package;
pub mod runtime;
pub mod service;
pub mod wire;

pub use hub::{hub, PluginHub};
