//! The permission matrix (SPEC §5.2, §5.3): a hand-written oracle of every operation's accepted
//! credentials and permission (`tests/fixtures/operations.csv`), checked against the catalog, and
//! every role / API key called against every permission-guarded operation.
//!
//! The role → permission matrix below is copied from `reference/auth_workspaces.md` §4.2 on
//! purpose: it must not come from the backend's own table.

mod oracle;
mod principals;

use std::collections::{BTreeMap, BTreeSet};

const OPERATIONS_CSV: &str = include_str!("../../fixtures/operations.csv");

/// LangBot's 15 permissions (reference §4.1).
const ALL_PERMISSIONS: [&str; 15] = [
    "api_key.manage",
    "audit.view",
    "billing_link.manage",
    "data.export",
    "member.invite",
    "member.remove",
    "member.update_role",
    "member.view",
    "provider_secret.manage",
    "resource.manage",
    "resource.view",
    "runtime.operate",
    "workspace.delete",
    "workspace.update",
    "workspace.view",
];

const ACCESS_VALUES: [&str; 4] = ["none", "none_or_session", "session", "session_or_api_key"];

/// Roles → permissions, reference §4.2.
fn role_permissions(role: &str) -> BTreeSet<&'static str> {
    let list: &[&'static str] = match role {
        "owner" => &ALL_PERMISSIONS,
        "admin" => &[
            "workspace.view",
            "workspace.update",
            "member.view",
            "member.invite",
            "member.update_role",
            "member.remove",
            "resource.view",
            "resource.manage",
            "runtime.operate",
            "provider_secret.manage",
            "api_key.manage",
            "audit.view",
            "data.export",
        ],
        "developer" => &[
            "workspace.view",
            "member.view",
            "resource.view",
            "resource.manage",
            "runtime.operate",
            "provider_secret.manage",
        ],
        "operator" => &[
            "workspace.view",
            "member.view",
            "resource.view",
            "runtime.operate",
        ],
        "viewer" => &["workspace.view", "member.view", "resource.view"],
        other => panic!("unknown role {other}"),
    };
    list.iter().copied().collect()
}

/// One row of the oracle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleRow {
    pub method: String,
    pub path: String,
    pub permission: Option<String>,
    pub access: String,
}

/// The oracle, by operation id; panics on a malformed table.
pub fn oracle() -> BTreeMap<String, OracleRow> {
    let mut lines = OPERATIONS_CSV.lines().filter(|l| !l.trim().is_empty());
    assert_eq!(
        lines.next().map(str::trim),
        Some("operation_id,method,path,permission,access"),
        "operations.csv: unexpected header"
    );
    let mut rows = BTreeMap::new();
    for line in lines {
        let cols: Vec<&str> = line.trim().split(',').map(str::trim).collect();
        assert_eq!(cols.len(), 5, "operations.csv: bad row {line:?}");
        let row = OracleRow {
            method: cols[1].to_string(),
            path: cols[2].to_string(),
            permission: Some(cols[3].to_string()).filter(|p| !p.is_empty()),
            access: cols[4].to_string(),
        };
        assert!(
            ["GET", "POST", "PUT", "PATCH", "DELETE"].contains(&row.method.as_str()),
            "operations.csv: bad method in {line:?}"
        );
        assert!(
            row.path.starts_with('/'),
            "operations.csv: bad path in {line:?}"
        );
        if let Some(p) = &row.permission {
            assert!(
                ALL_PERMISSIONS.contains(&p.as_str()),
                "operations.csv: unknown permission in {line:?}"
            );
        }
        assert!(
            ACCESS_VALUES.contains(&row.access.as_str()),
            "operations.csv: bad access in {line:?}"
        );
        if row.permission.is_some() {
            assert!(
                row.access == "session" || row.access == "session_or_api_key",
                "operations.csv: a permission needs an authenticated access rule: {line:?}"
            );
        }
        let previous = rows.insert(cols[0].to_string(), row);
        assert!(
            previous.is_none(),
            "operations.csv: duplicate id {}",
            cols[0]
        );
    }
    rows
}

fn is_authenticated(access: &str) -> bool {
    access == "session" || access == "session_or_api_key"
}
