//! The "not available" reads (knowledge bases, skills, the assistant, the marketplace, Box,
//! release info) refuse A's admin selecting B like every Workspace read, and answer A's
//! credentials with none of B's.

use reqwest::Method;

use super::assert_resource_isolated;
use super::attacks::Resource;
use super::world::leaks;

#[tokio::test]
async fn the_unavailable_reads_refuse_b_and_show_a_nothing_of_bs() {
    let w = assert_resource_isolated(Resource::Unavailable).await;
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
        for path in [
            "/api/v1/knowledge/bases",
            "/api/v1/skills",
            "/api/v1/box/status",
            "/api/v1/pipelines/_/migration/preview",
            "/api/v1/monitoring/feedback",
        ] {
            let res = w.app.call(cred, selector, Method::GET, path, None).await;
            let found = leaks(&res.text, &w.b_markers);
            if res.status != 200 || !found.is_empty() || res.text.contains(&w.ws_b) {
                problems.push(format!(
                    "GET {path} as {label}: expected 200 with none of B's, got {} {} ({found:?})",
                    res.status, res.text
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
