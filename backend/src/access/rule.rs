//! Which credentials an operation accepts (SPEC §5.2), and whether it runs in a Workspace.

/// The access rule of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// No credentials.
    Public,
    /// No credentials needed, but a session token, when sent, identifies the account.
    OptionalSession,
    /// No credentials needed; a valid session token or API key selects its Workspace, an
    /// invalid one is ignored (LangBot's `system/info` adds Workspace fields that way).
    OptionalWorkspace,
    /// A session token; no Workspace context (account operations).
    Account,
    /// A session token, in the selected Workspace.
    SessionWorkspace,
    /// A session token or an API key (incl. the global key), in a Workspace.
    Workspace,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Public => "none",
            Self::OptionalSession | Self::OptionalWorkspace => "none_or_session",
            Self::Account => "session",
            Self::SessionWorkspace => "session",
            Self::Workspace => "session_or_api_key",
        }
    }

    pub fn has_workspace(self) -> bool {
        matches!(self, Self::SessionWorkspace | Self::Workspace)
    }
}
