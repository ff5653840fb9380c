//! The web UI served from `web.dir`: files, precompressed variants, cache headers, the
//! client-route fallback, and the server paths that never fall back.

use std::path::Path;

use reqwest::Method;

use crate::helpers::{spawn_app_with, TestApp};

const INDEX: &str = "<!doctype html><title>LangBot UI</title>";
const SCRIPT: &str = "console.log('app')";

/// A built UI: `index.html`, one hashed asset with `.br` and `.gz` siblings, and a root file.
fn write_ui(dir: &Path) {
    let assets = dir.join("assets");
    std::fs::create_dir_all(&assets).expect("assets dir");
    std::fs::write(dir.join("index.html"), INDEX).expect("index");
    std::fs::write(dir.join("favicon.svg"), "<svg/>").expect("favicon");
    std::fs::write(assets.join("index-AbC123.js"), SCRIPT).expect("script");
    std::fs::write(assets.join("index-AbC123.js.br"), "brotli bytes").expect("br");
    std::fs::write(assets.join("index-AbC123.js.gz"), "gzip bytes").expect("gz");
    // Outside the web dir: must never be reachable.
    std::fs::write(dir.parent().expect("parent").join("secret.txt"), "secret").expect("secret");
}

async fn app_with_ui() -> (TestApp, tempfile::TempDir) {
    let root = tempfile::tempdir().expect("temp dir");
    let dist = root.path().join("dist");
    write_ui(&dist);
    let app = spawn_app_with(|s| s.web.dir = Some(dist)).await;
    (app, root)
}

async fn get_with(app: &TestApp, path: &str, accept_encoding: &str) -> crate::helpers::Response {
    app.request(Method::GET, path)
        .header("accept-encoding", accept_encoding)
        .send()
        .await
}

#[tokio::test]
async fn root_and_client_routes_answer_index_html_never_cached() {
    let (app, _root) = app_with_ui().await;
    for path in [
        "/",
        "/login",
        "/providers/3f1c",
        "/settings/api-keys",
        "/invitations/accept",
    ] {
        let res = get_with(&app, path, "identity").await;
        assert_eq!(res.status, 200, "{path}");
        assert_eq!(res.text, INDEX, "{path}");
        assert_eq!(res.header("content-type"), Some("text/html; charset=utf-8"));
        assert_eq!(res.header("cache-control"), Some("no-store"), "{path}");
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_precompressed_when_accepted() {
    let (app, _root) = app_with_ui().await;
    let path = "/assets/index-AbC123.js";

    let br = get_with(&app, path, "gzip, deflate, br").await;
    assert_eq!(br.status, 200);
    assert_eq!(br.text, "brotli bytes");
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(
        br.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(
        br.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(br.header("vary"), Some("Accept-Encoding"));

    let gz = get_with(&app, path, "gzip").await;
    assert_eq!(gz.text, "gzip bytes");
    assert_eq!(gz.header("content-encoding"), Some("gzip"));

    let refused = get_with(&app, path, "br;q=0, gzip;q=0").await;
    assert_eq!(refused.text, SCRIPT);
    assert_eq!(refused.header("content-encoding"), None);

    let root_file = get_with(&app, "/favicon.svg", "identity").await;
    assert_eq!(root_file.status, 200);
    assert_eq!(root_file.header("content-type"), Some("image/svg+xml"));
    assert_eq!(
        root_file.header("cache-control"),
        Some("public, max-age=3600")
    );
}

#[tokio::test]
async fn missing_files_and_escapes_are_json_404s_not_html() {
    let (app, _root) = app_with_ui().await;
    for path in [
        "/assets/index-Old999.js",
        "/assets/nested/page",
        "/robots.txt",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/assets/..%2f..%2fsecret.txt",
    ] {
        let res = get_with(&app, path, "identity").await;
        assert!(!res.text.contains("secret"), "{path}: {}", res.text);
        assert_ne!(res.text, INDEX, "{path}");
        assert_eq!(res.status, 404, "{path}");
        res.assert_error(404, "resource_not_found");
    }
}

#[tokio::test]
async fn server_paths_never_fall_back_to_the_ui() {
    let (app, _root) = app_with_ui().await;
    for path in [
        "/api",
        "/api/v1/no-such-endpoint",
        "/api/v2/x",
        "/bots",
        "/bots/x/y/z",
    ] {
        let res = get_with(&app, path, "identity").await;
        assert_ne!(res.text, INDEX, "{path}");
        res.assert_error(404, "resource_not_found");
    }
    // Real server routes keep answering as before.
    let health = get_with(&app, "/healthz", "identity").await;
    assert_eq!(health.status, 200);
    assert_ne!(health.text, INDEX);
    let info = get_with(&app, "/api/v1/system/info", "identity").await;
    assert_eq!(info.data()["initialized"], false);
    let mcp = get_with(&app, "/mcp", "identity").await;
    assert_ne!(mcp.text, INDEX);
    assert_ne!(mcp.status, 200);
    // Other methods on client routes are not the UI's either.
    let post = app.post("/settings", &serde_json::json!({})).await;
    post.assert_error(404, "resource_not_found");
}

#[tokio::test]
async fn an_unbuilt_ui_says_how_to_build_it() {
    let root = tempfile::tempdir().expect("temp dir");
    let missing = root.path().join("no-dist");
    let app = spawn_app_with(|s| s.web.dir = Some(missing)).await;
    let res = get_with(&app, "/", "identity").await;
    assert_eq!(res.status, 503);
    assert!(res.text.contains("The web UI is not built"), "{}", res.text);
    assert!(res.text.contains("no-dist"), "{}", res.text);
    assert_eq!(res.header("cache-control"), Some("no-store"));
    // The API is unaffected.
    let info = get_with(&app, "/api/v1/system/info", "identity").await;
    assert_eq!(info.status, 200);
}
