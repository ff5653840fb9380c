//! The interactive API reference at `/api/docs`, served offline.

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_docs_ui_and_its_assets_are_served_locally() {
    let app = spawn_app().await;
    let res = app.get("/api/docs/").await;
    assert_eq!(res.status, 200);
    assert!(res.text.to_lowercase().contains("swagger"), "{}", res.text);
    assert!(
        !res.text.contains("cdn"),
        "the docs page must not load from a CDN"
    );
    let css = app.get("/api/docs/swagger-ui.css").await;
    assert_eq!(css.status, 200);
    // The UI loads the document the server serves, which is the committed one.
    let init = app.get("/api/docs/swagger-initializer.js").await;
    assert_eq!(init.status, 200);
    assert!(init.text.contains("/api/v1/openapi.json"), "{}", init.text);
    let doc = app.get("/api/v1/openapi.json").await;
    assert_eq!(doc.status, 200);
    assert_eq!(doc.header("content-type"), Some("application/json"));
    let committed: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../openapi/openapi.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&doc.text).unwrap(),
        committed
    );
    let redirect = app
        .request_on_own_connection(reqwest::Method::GET, "/api/docs")
        .send_unread()
        .await;
    assert!(redirect.status().is_redirection());
}
