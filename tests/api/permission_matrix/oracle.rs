//! The oracle agrees with the catalog, and keeps SPEC's public list public.

use std::collections::{BTreeMap, BTreeSet};

use super::{is_authenticated, oracle};

#[test]
fn the_oracle_and_the_catalog_agree() {
    let oracle = oracle();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for op in langbot::api::catalog().operations() {
        let meta = op.meta();
        if !seen.insert(meta.id) {
            problems.push(format!("{}: declared twice in the catalog", meta.id));
        }
        let Some(row) = oracle.get(meta.id) else {
            problems.push(format!(
                "{}: in the catalog but missing from tests/fixtures/operations.csv",
                meta.id
            ));
            continue;
        };
        if row.method != meta.method.as_str() {
            problems.push(format!(
                "{}: method {} in the catalog, {} in the oracle",
                meta.id,
                meta.method.as_str(),
                row.method
            ));
        }
        if row.path != meta.path {
            problems.push(format!(
                "{}: path {} in the catalog, {} in the oracle",
                meta.id, meta.path, row.path
            ));
        }
        let permission = meta.permission.map(|p| p.as_str());
        if row.permission.as_deref() != permission {
            problems.push(format!(
                "{}: permission {:?} in the catalog, {:?} in the oracle",
                meta.id, permission, row.permission
            ));
        }
        if row.access != meta.access.as_str() {
            problems.push(format!(
                "{}: access {} in the catalog, {} in the oracle",
                meta.id,
                meta.access.as_str(),
                row.access
            ));
        }
    }
    for id in oracle.keys() {
        if !seen.contains(id.as_str()) {
            problems.push(format!(
                "{id}: in tests/fixtures/operations.csv but not in the catalog"
            ));
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

/// The public operations really are reachable without credentials, and the oracle's
/// classification of `none` vs authenticated covers SPEC §5.2's public list.
#[test]
fn the_oracle_keeps_the_spec_public_list_public() {
    let oracle = oracle();
    let public: BTreeMap<&str, &str> = [
        // A session token, when sent, adds the Workspace's wizard fields (reference
        // tool_sources.md §6.1).
        ("get_system_info", "none_or_session"),
        // LangBot's login page and `<img src>` icons (reference tool_sources.md §6.2, §6.10,
        // §6.11): no credentials.
        ("get_login_methods", "none"),
        ("get_requester_icon", "none"),
        ("get_adapter_icon", "none"),
        // LangBot's UI sends these to its cloud service, without credentials (§6 preamble).
        ("list_marketplace_plugins", "none"),
        ("search_marketplace_plugins", "none"),
        ("search_marketplace_extensions", "none"),
        ("get_marketplace_recommendation_lists", "none"),
        ("list_langbot_releases", "none"),
        ("get_langbot_repo_info", "none"),
        ("get_init_status", "none"),
        ("init_account", "none"),
        ("login", "none"),
        ("inspect_invitation", "none"),
        ("accept_invitation", "none_or_session"),
    ]
    .into_iter()
    .collect();
    for (id, row) in &oracle {
        match public.get(id.as_str()) {
            Some(access) => assert_eq!(row.access, *access, "{id}"),
            None => assert!(
                is_authenticated(&row.access),
                "{id}: not in SPEC §5.2's public list, must need credentials"
            ),
        }
    }
}
