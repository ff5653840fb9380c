//! Response compression: gzip only for bodies of 1 KiB or more whose client accepts it.

use reqwest::Method;

use crate::helpers::spawn_app;

async fn raw(address: &str, path: &str, accept_encoding: &str) -> reqwest::Response {
    reqwest::Client::new()
        .get(format!("{address}{path}"))
        .header("accept-encoding", accept_encoding)
        .send()
        .await
        .expect("request")
}

#[tokio::test]
async fn a_small_answer_goes_as_it_is_even_to_a_gzip_client() {
    let app = spawn_app().await;
    for path in ["/healthz", "/api/v1/system/info"] {
        let res = raw(&app.address, path, "gzip, deflate, br").await;
        assert_eq!(res.status(), 200, "{path}");
        assert!(res.headers().get("content-encoding").is_none(), "{path}");
        let len: usize = res.headers()["content-length"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(len < 1024, "{path}: {len} bytes");
        let body: serde_json::Value = res.json().await.expect("json");
        assert!(body.is_object(), "{path}");
    }
}

#[tokio::test]
async fn a_large_answer_is_gzipped_when_accepted_and_only_then() {
    let app = spawn_app().await;
    let gzipped = raw(&app.address, "/api/v1/openapi.json", "br;q=1, gzip;q=0.5").await;
    assert_eq!(gzipped.status(), 200);
    assert_eq!(gzipped.headers()["content-encoding"], "gzip");
    assert_eq!(gzipped.headers()["vary"], "accept-encoding");
    assert!(gzipped.headers().get("x-request-id").is_some());
    let bytes = gzipped.bytes().await.expect("body");
    assert_eq!(&bytes[..2], &[0x1f, 0x8b], "a gzip stream");

    for refused in ["identity", "gzip;q=0", "br"] {
        let plain = raw(&app.address, "/api/v1/openapi.json", refused).await;
        assert!(
            plain.headers().get("content-encoding").is_none(),
            "{refused}"
        );
        let doc: serde_json::Value = plain.json().await.expect("json");
        assert!(doc["paths"].is_object(), "{refused}");
    }
    // Without the header, as before.
    let res = app
        .request(Method::GET, "/api/v1/openapi.json")
        .send()
        .await;
    assert_eq!(res.status, 200);
    assert!(res.header("content-encoding").is_none());
}
