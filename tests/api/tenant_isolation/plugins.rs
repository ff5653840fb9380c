//! B's plugins (by author and name) are out of A's reach: not found, not changed, not listed;
//! A's plugin list and its plugin system status show nothing of B's.

use reqwest::Method;

use super::assert_resource_isolated;
use super::attacks::Resource;
use super::world::leaks;

#[tokio::test]
async fn bs_plugins_are_not_found_changed_or_listed_for_a() {
    let w = assert_resource_isolated(Resource::Plugins).await;
    let mut problems = Vec::new();
    for (cred, selector, label) in [
        (&w.admin_a, None, "A's admin"),
        (&w.key_a, None, "A's API key"),
        (
            &w.key_a,
            Some(w.ws_b.as_str()),
            "A's API key with X-Workspace-Id B",
        ),
    ] {
        for path in ["/api/v1/plugins", "/api/v1/system/status/plugin-system"] {
            let res = w.app.call(cred, selector, Method::GET, path, None).await;
            let found = leaks(&res.text, &w.b_markers);
            if res.status != 200 || !found.is_empty() || res.text.contains("tester") {
                problems.push(format!(
                    "GET {path} as {label}: expected 200 with none of B's, got {} {} ({found:?})",
                    res.status, res.text
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
