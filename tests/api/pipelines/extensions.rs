//! `GET/PUT /api/v1/pipelines/{pipeline_uuid}/extensions`: a new pipeline allows everything;
//! a PUT fills what it omits (`enable_all_*` true, lists empty); bound servers must be this
//! Workspace's (else 400 naming `bound_mcp_servers[i]`); plugins `{author, name}`; the
//! available servers are listed.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{extensions_path, Instance, MCP_SERVERS};

async fn server(i: &Instance, name: &str) -> String {
    i.send(
        Method::POST,
        MCP_SERVERS,
        &json!({ "name": name, "mode": "remote", "extra_args": { "url": "http://127.0.0.1:9/mcp" } }),
    )
    .await
    .data()["uuid"]
        .as_str()
        .expect("uuid")
        .to_string()
}

#[tokio::test]
async fn a_new_pipeline_allows_everything() {
    let i = Instance::new().await;
    let pipeline = i.app.pipeline_named(&i.owner, "P", false).await;
    let s = server(&i, "listed").await;
    let data = i.get(&extensions_path(&pipeline)).await.data().clone();
    for key in [
        "enable_all_plugins",
        "enable_all_mcp_servers",
        "enable_all_skills",
        "mcp_resource_agent_read_enabled",
    ] {
        assert_eq!(data[key], true, "{key}: {data:#}");
    }
    for key in [
        "bound_plugins",
        "bound_mcp_servers",
        "bound_skills",
        "bound_mcp_resources",
        "available_plugins",
        "available_skills",
    ] {
        assert_eq!(data[key], json!([]), "{key}: {data:#}");
    }
    let available = data["available_mcp_servers"].as_array().expect("available");
    assert_eq!(available.len(), 1, "{data:#}");
    assert_eq!(available[0]["uuid"], s.as_str());
    assert_eq!(available[0]["name"], "listed");
    assert!(available[0].get("runtime_info").is_some(), "{data:#}");
}

#[tokio::test]
async fn put_sets_the_bindings_and_fills_what_it_omits() {
    let i = Instance::new().await;
    let pipeline = i.app.pipeline_named(&i.owner, "P", false).await;
    let a = server(&i, "a").await;
    let b = server(&i, "b").await;
    let path = extensions_path(&pipeline);
    let res = i
        .send(
            Method::PUT,
            &path,
            &json!({
                "enable_all_mcp_servers": false, "bound_mcp_servers": [a, b],
                "enable_all_plugins": false,
                "bound_plugins": [{ "author": "langbot", "name": "weather" }],
                "enable_all_skills": false, "bound_skills": ["summarize"],
            }),
        )
        .await;
    let returned = res.data().clone();
    let data = i.get(&path).await.data().clone();
    assert_eq!(
        returned, data,
        "the PUT answers with the bindings it stored"
    );
    assert_eq!(data["enable_all_mcp_servers"], false);
    assert_eq!(data["bound_mcp_servers"], json!([a, b]));
    assert_eq!(data["enable_all_plugins"], false);
    assert_eq!(
        data["bound_plugins"],
        json!([{ "author": "langbot", "name": "weather" }])
    );
    assert_eq!(data["enable_all_skills"], false);
    assert_eq!(data["bound_skills"], json!(["summarize"]));

    // Omitted: enable_all_* true, lists [].
    i.send(Method::PUT, &path, &json!({ "bound_mcp_servers": [a] }))
        .await
        .data();
    let data = i.get(&path).await.data().clone();
    assert_eq!(data["enable_all_mcp_servers"], true, "{data:#}");
    assert_eq!(data["enable_all_plugins"], true);
    assert_eq!(data["enable_all_skills"], true);
    assert_eq!(data["bound_mcp_servers"], json!([a]));
    assert_eq!(data["bound_plugins"], json!([]));
    assert_eq!(data["bound_skills"], json!([]));

    // The pipeline itself reads the same afterwards (the bindings do not leak into config).
    let p = i.app.pipeline(&i.owner, &pipeline).await;
    assert_eq!(p["name"], "P");

    // Deleting a bound server: it is no longer listed as available.
    i.delete(&format!("{MCP_SERVERS}/a")).await.data();
    let data = i.get(&path).await.data().clone();
    let names: Vec<&str> = data["available_mcp_servers"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["b"]);
}

#[tokio::test]
async fn bad_bindings_are_refused_naming_the_entry() {
    let i = Instance::multi().await;
    let pipeline = i.app.pipeline_named(&i.owner, "P", false).await;
    let mine = server(&i, "mine").await;
    // A server of another Workspace of the same owner.
    let ws2 = i.app.create_workspace(&i.owner, "Other").await;
    let theirs = i
        .call(
            &i.owner,
            Some(ws2.as_str()),
            Method::POST,
            MCP_SERVERS,
            Some(&json!({ "name": "theirs", "mode": "remote",
                          "extra_args": { "url": "http://127.0.0.1:9/mcp" } })),
        )
        .await
        .data()["uuid"]
        .as_str()
        .unwrap()
        .to_string();
    let path = extensions_path(&pipeline);
    let before = i.get(&path).await.data().clone();
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "an unknown server uuid",
            json!({ "bound_mcp_servers": [uuid::Uuid::new_v4().to_string()] }),
            "bound_mcp_servers[0]",
        ),
        (
            "another Workspace's server",
            json!({ "bound_mcp_servers": [mine, theirs] }),
            "bound_mcp_servers[1]",
        ),
        (
            "a server name instead of its uuid",
            json!({ "bound_mcp_servers": ["mine"] }),
            "bound_mcp_servers[0]",
        ),
        (
            "a server entry that is not a string",
            json!({ "bound_mcp_servers": [7] }),
            "bound_mcp_servers[0]",
        ),
        (
            "bound_mcp_servers not a list",
            json!({ "bound_mcp_servers": "all" }),
            "bound_mcp_servers",
        ),
        (
            "a plugin without author",
            json!({ "bound_plugins": [{ "name": "x" }] }),
            "bound_plugins[0]",
        ),
        (
            "a plugin with an empty name",
            json!({ "bound_plugins": [{ "author": "a", "name": "" }] }),
            "bound_plugins[0]",
        ),
        (
            "a plugin that is a string",
            json!({ "bound_plugins": ["a/b"] }),
            "bound_plugins[0]",
        ),
        (
            "enable_all_mcp_servers not a bool",
            json!({ "enable_all_mcp_servers": "yes" }),
            "enable_all_mcp_servers",
        ),
    ];
    for (what, body, field) in cases {
        let res = i.send(Method::PUT, &path, &body).await;
        res.expect_field_error(400, "invalid_request", field, what);
    }
    assert_eq!(i.get(&path).await.data(), &before, "nothing changed");
}

#[tokio::test]
async fn an_unknown_pipeline_is_not_found() {
    let i = Instance::new().await;
    let path = extensions_path(&uuid::Uuid::new_v4().to_string());
    i.get(&path).await.assert_error(404, "resource_not_found");
    i.send(Method::PUT, &path, &json!({}))
        .await
        .assert_error(404, "resource_not_found");
}
