//! B's MCP servers (by name) and B's pipeline's extension bindings and tools are out of A's
//! reach: not found, not changed, not tested, not listed.

use reqwest::Method;

use super::assert_resource_isolated;
use super::attacks::Resource;
use super::world::leaks;

#[tokio::test]
async fn bs_mcp_servers_are_not_found_changed_or_tested_for_a() {
    let w = assert_resource_isolated(Resource::Mcp).await;
    let mut problems = Vec::new();
    // Reads in A: none of B's servers, and B's pipeline's tools are not found.
    for (cred, selector, label) in [
        (&w.admin_a, None, "A's admin"),
        (&w.key_a, None, "A's API key"),
        (
            &w.key_a,
            Some(w.ws_b.as_str()),
            "A's API key with X-Workspace-Id B",
        ),
    ] {
        for path in ["/api/v1/mcp/servers", "/api/v1/tools"] {
            let res = w.app.call(cred, selector, Method::GET, path, None).await;
            let found = leaks(&res.text, &w.b_markers);
            if res.status != 200 || !found.is_empty() || res.text.contains("sk-b-mcp-secret") {
                problems.push(format!(
                    "GET {path} as {label}: expected 200 with none of B's, got {} {} ({found:?})",
                    res.status, res.text
                ));
            }
        }
        let path = format!("/api/v1/tools?pipeline_uuid={}", w.pipeline_b);
        let res = w.app.call(cred, selector, Method::GET, &path, None).await;
        if res.status != 404 || res.body["code"] != "resource_not_found" {
            problems.push(format!(
                "GET {path} as {label}: expected 404 resource_not_found, got {} {}",
                res.status, res.text
            ));
        }
    }
    // B's owner still has it, unchanged (the attacks changed nothing, checked above).
    let res = w
        .app
        .call(
            &w.owner,
            Some(w.ws_b.as_str()),
            Method::GET,
            &format!("/api/v1/mcp/servers/{}", w.mcp_server_b),
            None,
        )
        .await;
    if res.status != 200 || res.body["data"]["server"]["readme"] != "" {
        problems.push(format!(
            "B's server for B's owner: {} {}",
            res.status, res.text
        ));
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
