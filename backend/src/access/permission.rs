//! Permissions and the fixed role → permission matrix (reference auth_workspaces §4.2), in one place.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A Workspace permission (LangBot's 15, serialized with their dotted names).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
pub enum Permission {
    #[serde(rename = "api_key.manage")]
    ApiKeyManage,
    #[serde(rename = "audit.view")]
    AuditView,
    #[serde(rename = "billing_link.manage")]
    BillingLinkManage,
    #[serde(rename = "data.export")]
    DataExport,
    #[serde(rename = "member.invite")]
    MemberInvite,
    #[serde(rename = "member.remove")]
    MemberRemove,
    #[serde(rename = "member.update_role")]
    MemberUpdateRole,
    #[serde(rename = "member.view")]
    MemberView,
    #[serde(rename = "provider_secret.manage")]
    ProviderSecretManage,
    #[serde(rename = "resource.manage")]
    ResourceManage,
    #[serde(rename = "resource.view")]
    ResourceView,
    #[serde(rename = "runtime.operate")]
    RuntimeOperate,
    #[serde(rename = "workspace.delete")]
    WorkspaceDelete,
    #[serde(rename = "workspace.update")]
    WorkspaceUpdate,
    #[serde(rename = "workspace.view")]
    WorkspaceView,
}

impl Permission {
    /// All permissions in LangBot's sorted order.
    pub const ALL: [Permission; 15] = [
        Self::ApiKeyManage,
        Self::AuditView,
        Self::BillingLinkManage,
        Self::DataExport,
        Self::MemberInvite,
        Self::MemberRemove,
        Self::MemberUpdateRole,
        Self::MemberView,
        Self::ProviderSecretManage,
        Self::ResourceManage,
        Self::ResourceView,
        Self::RuntimeOperate,
        Self::WorkspaceDelete,
        Self::WorkspaceUpdate,
        Self::WorkspaceView,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ApiKeyManage => "api_key.manage",
            Self::AuditView => "audit.view",
            Self::BillingLinkManage => "billing_link.manage",
            Self::DataExport => "data.export",
            Self::MemberInvite => "member.invite",
            Self::MemberRemove => "member.remove",
            Self::MemberUpdateRole => "member.update_role",
            Self::MemberView => "member.view",
            Self::ProviderSecretManage => "provider_secret.manage",
            Self::ResourceManage => "resource.manage",
            Self::ResourceView => "resource.view",
            Self::RuntimeOperate => "runtime.operate",
            Self::WorkspaceDelete => "workspace.delete",
            Self::WorkspaceUpdate => "workspace.update",
            Self::WorkspaceView => "workspace.view",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == name)
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

/// A set of permissions, as a bit set (cheap to copy and intersect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct PermissionSet(u16);

impl PermissionSet {
    pub const EMPTY: Self = Self(0);

    pub fn all() -> Self {
        Self::from_iter(Permission::ALL)
    }

    pub fn contains(self, p: Permission) -> bool {
        self.0 & p.bit() != 0
    }

    pub fn intersect(self, other: Self) -> Self {
        Self(self.0 & other.0)
    }

    pub fn is_subset_of(self, other: Self) -> bool {
        self.0 & !other.0 == 0
    }

    /// The permissions in LangBot's sorted order.
    pub fn to_vec(self) -> Vec<Permission> {
        Permission::ALL
            .into_iter()
            .filter(|p| self.contains(*p))
            .collect()
    }
}

impl FromIterator<Permission> for PermissionSet {
    fn from_iter<I: IntoIterator<Item = Permission>>(iter: I) -> Self {
        Self(iter.into_iter().fold(0, |acc, p| acc | p.bit()))
    }
}

/// A Workspace role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Owner,
    Admin,
    Developer,
    Operator,
    Viewer,
}

impl Role {
    pub const ALL: [Role; 5] = [
        Self::Owner,
        Self::Admin,
        Self::Developer,
        Self::Operator,
        Self::Viewer,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Admin => "admin",
            Self::Developer => "developer",
            Self::Operator => "operator",
            Self::Viewer => "viewer",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// The role → permission matrix.
    pub fn permissions(self) -> PermissionSet {
        use Permission::*;
        let viewer = [WorkspaceView, MemberView, ResourceView];
        let operator = [RuntimeOperate];
        let developer = [ResourceManage, ProviderSecretManage];
        let admin = [
            WorkspaceUpdate,
            MemberInvite,
            MemberUpdateRole,
            MemberRemove,
            ApiKeyManage,
            AuditView,
            DataExport,
        ];
        let owner = [WorkspaceDelete, BillingLinkManage];
        let levels: &[&[Permission]] = match self {
            Self::Viewer => &[&viewer],
            Self::Operator => &[&viewer, &operator],
            Self::Developer => &[&viewer, &operator, &developer],
            Self::Admin => &[&viewer, &operator, &developer, &admin],
            Self::Owner => &[&viewer, &operator, &developer, &admin, &owner],
        };
        levels.iter().flat_map(|l| l.iter().copied()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_matches_the_reference_table() {
        let count = |r: Role| r.permissions().to_vec().len();
        assert_eq!(count(Role::Owner), 15);
        assert_eq!(count(Role::Admin), 13);
        assert_eq!(count(Role::Developer), 6);
        assert_eq!(count(Role::Operator), 4);
        assert_eq!(count(Role::Viewer), 3);
        assert!(!Role::Operator
            .permissions()
            .contains(Permission::ResourceManage));
        assert!(Role::Operator
            .permissions()
            .contains(Permission::RuntimeOperate));
        assert!(!Role::Admin
            .permissions()
            .contains(Permission::BillingLinkManage));
        assert!(!Role::Admin
            .permissions()
            .contains(Permission::WorkspaceDelete));
    }

    #[test]
    fn names_round_trip() -> Result<(), serde_json::Error> {
        for p in Permission::ALL {
            assert_eq!(Permission::parse(p.as_str()), Some(p));
            assert_eq!(serde_json::to_value(p)?, serde_json::json!(p.as_str()));
        }
        Ok(())
    }
}
