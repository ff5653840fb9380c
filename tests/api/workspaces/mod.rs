//! Workspaces, members, invitations and the message language: `/api/v1/workspaces/*` and
//! `/api/v1/invitations/*`.

mod crud;
mod invitations;
mod language;
mod members;
