//! Workspaces: listing and selection, members and roles, invitations, the message language.

pub mod dto;
mod invitations;
pub mod ops;
pub mod service;

pub use invitations::INVITATION_TTL;
