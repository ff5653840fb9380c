//! Create, list, get, update (partial; `extra_args` replaced whole; rename), delete; names
//! unique per Workspace (409), trimmed.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{mcp_server_path, Instance, MCP_SERVERS};

/// The keys of a Server object.
const SERVER_FIELDS: [&str; 10] = [
    "uuid",
    "workspace_uuid",
    "name",
    "enable",
    "mode",
    "extra_args",
    "readme",
    "created_at",
    "updated_at",
    "runtime_info",
];

fn remote(name: &str) -> Value {
    json!({ "name": name, "mode": "remote", "extra_args": { "url": "http://127.0.0.1:9/mcp" } })
}

#[tokio::test]
async fn a_server_is_created_listed_read_updated_and_deleted() {
    let i = Instance::new().await;
    let res = i
        .send(Method::POST, MCP_SERVERS, &remote("  files  "))
        .await;
    let uuid = res.data()["uuid"].as_str().expect("uuid").to_string();
    uuid::Uuid::parse_str(&uuid).expect("a uuid");

    let list = i.get(MCP_SERVERS).await;
    let servers = list.data()["servers"].as_array().expect("servers").clone();
    assert_eq!(servers.len(), 1, "{}", list.text);
    let server = &servers[0];
    let mut keys: Vec<&str> = server
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    let mut expected = SERVER_FIELDS.to_vec();
    expected.sort_unstable();
    assert_eq!(keys, expected, "{server:#}");
    assert_eq!(server["uuid"], uuid.as_str());
    assert_eq!(server["workspace_uuid"], i.ws.as_str());
    assert_eq!(server["name"], "files", "the name is trimmed");
    assert_eq!(server["enable"], false, "enable defaults to false");
    assert_eq!(server["mode"], "remote");
    assert_eq!(server["extra_args"]["url"], "http://127.0.0.1:9/mcp");
    assert_eq!(server["readme"], "");
    assert!(
        server["runtime_info"].is_null(),
        "disabled: no runtime info"
    );

    let got = i.get(&mcp_server_path("files")).await;
    assert_eq!(&got.data()["server"], server);

    // Partial update: only readme; the rest unchanged.
    let res = i
        .send(
            Method::PUT,
            &mcp_server_path("files"),
            &json!({ "readme": "# Files" }),
        )
        .await;
    assert!(res.data().is_null(), "{}", res.text);
    let after = i.get(&mcp_server_path("files")).await.data()["server"].clone();
    assert_eq!(after["readme"], "# Files");
    assert_eq!(after["extra_args"], server["extra_args"]);
    assert_eq!(after["created_at"], server["created_at"]);

    // extra_args is replaced whole.
    let res = i
        .send(
            Method::PUT,
            &mcp_server_path("files"),
            &json!({ "extra_args": { "url": "http://127.0.0.1:9/other", "timeout": 5 } }),
        )
        .await;
    res.data();
    let after = i.get(&mcp_server_path("files")).await.data()["server"].clone();
    assert_eq!(
        after["extra_args"]["url"], "http://127.0.0.1:9/other",
        "{after:#}"
    );
    assert_eq!(after["extra_args"]["timeout"], 5);
    assert!(after["extra_args"]
        .get("headers")
        .is_none_or(|h| h == &json!({})));

    // Rename: the old name is gone, the uuid kept.
    i.send(
        Method::PUT,
        &mcp_server_path("files"),
        &json!({ "name": "docs" }),
    )
    .await
    .data();
    i.get(&mcp_server_path("files"))
        .await
        .assert_error(404, "resource_not_found");
    let renamed = i.get(&mcp_server_path("docs")).await.data()["server"].clone();
    assert_eq!(renamed["uuid"], uuid.as_str());

    let res = i.delete(&mcp_server_path("docs")).await;
    assert!(res.data().is_null(), "{}", res.text);
    i.get(&mcp_server_path("docs"))
        .await
        .assert_error(404, "resource_not_found");
    assert_eq!(i.get(MCP_SERVERS).await.data()["servers"], json!([]));
    i.delete(&mcp_server_path("docs"))
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn unknown_servers_are_not_found_on_every_route() {
    let i = Instance::new().await;
    let path = mcp_server_path("nobody");
    i.get(&path).await.assert_error(404, "resource_not_found");
    i.send(Method::PUT, &path, &json!({ "readme": "x" }))
        .await
        .assert_error(404, "resource_not_found");
    i.delete(&path)
        .await
        .assert_error(404, "resource_not_found");
    i.send(Method::POST, &format!("{path}/test"), &json!({}))
        .await
        .assert_error(404, "resource_not_found");
    i.get(&format!("{path}/resources"))
        .await
        .assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn names_are_unique_per_workspace() {
    let i = Instance::multi().await;
    i.send(Method::POST, MCP_SERVERS, &remote("same"))
        .await
        .data();
    i.send(Method::POST, MCP_SERVERS, &remote("same"))
        .await
        .expect_error(409, "conflict", "a duplicate name");
    i.send(Method::POST, MCP_SERVERS, &remote(" same "))
        .await
        .expect_error(409, "conflict", "a duplicate after trimming");
    // Renaming onto an existing name is a conflict too.
    i.send(Method::POST, MCP_SERVERS, &remote("other"))
        .await
        .data();
    i.send(
        Method::PUT,
        &mcp_server_path("other"),
        &json!({ "name": "same" }),
    )
    .await
    .expect_error(409, "conflict", "a rename onto a taken name");
    // Another Workspace may use the name.
    let ws2 = i.app.create_workspace(&i.owner, "Second").await;
    let res = i
        .call(
            &i.owner,
            Some(ws2.as_str()),
            Method::POST,
            MCP_SERVERS,
            Some(&remote("same")),
        )
        .await;
    res.data();
    let here = i.get(MCP_SERVERS).await.data()["servers"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(
        here, 2,
        "the second Workspace's server is not listed in the first"
    );
}
