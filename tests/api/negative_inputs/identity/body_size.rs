//! Bodies over the 1 MiB limit are 413 `payload_too_large`, however they arrive.

use reqwest::Method;
use serde_json::json;

use super::{fixture, ONE_MIB};
use crate::helpers::Response;

#[tokio::test]
async fn bodies_over_one_mebibyte_are_payload_too_large() {
    let fx = fixture().await;
    let app = &fx.app;
    let expect_413 = |res: &Response, what: &str| {
        res.expect_error(413, "payload_too_large", what);
        assert_eq!(res.body["details"]["limit_bytes"], ONE_MIB, "{}", res.text);
    };
    let huge = format!(r#"{{"user":"{}","password":"x"}}"#, "a".repeat(2 * ONE_MIB));

    // A really big body with its Content-Length: public and authenticated endpoints.
    let init = fx.find(Method::POST, "/user/init");
    expect_413(
        &fx.send_raw(&init, huge.clone()).await,
        "2 MiB to user/init",
    );
    for target in fx.body_targets() {
        let res = fx.send_raw(&target, huge.clone()).await;
        expect_413(&res, &format!("2 MiB to {}", target.label()));
    }

    // One byte over the limit is too much; exactly the limit is read (and then judged).
    let keys = fx.find(Method::POST, "/apikeys");
    let padded = |len: usize| {
        let mut body = br#"{"name":"padded key"}"#.to_vec();
        body.resize(len, b' ');
        body
    };
    expect_413(
        &fx.send_raw(&keys, padded(ONE_MIB + 1)).await,
        "limit + 1 bytes",
    );
    let res = fx.send_raw(&keys, padded(ONE_MIB)).await;
    assert_eq!(res.data()["key"]["name"], "padded key");
    // A big body under the limit is judged by its content: 400, not 413.
    let res = fx
        .send_json(&keys, &json!({ "name": "n".repeat(ONE_MIB - 100) }))
        .await;
    res.expect_field_error(400, "invalid_request", "name", "a 1 MiB name");

    // A streamed (chunked) body without Content-Length that is really that big.
    for target in [&init, &keys] {
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            (0..40).map(|_| Ok(vec![b' '; 64 * 1024])).collect();
        let body = reqwest::Body::wrap_stream(futures_util::stream::iter(chunks));
        let res = fx.send_raw(target, body).await;
        expect_413(&res, &format!("chunked 2.5 MiB to {}", target.label()));
    }

    // A declared Content-Length over the limit is refused before the body is read.
    for declared in [ONE_MIB as u64 + 1, 5_000_000, 1 << 40] {
        let request = format!(
            "POST /api/v1/user/init HTTP/1.1\r\nHost: localhost\r\n\
             Content-Type: application/json\r\nContent-Length: {declared}\r\n\
             Connection: close\r\n\r\n{{}}"
        );
        let (status, body) = app.raw_http(request.into_bytes()).await;
        assert_eq!(status, 413, "declared {declared}: {body}");
        assert_eq!(
            body["code"], "payload_too_large",
            "declared {declared}: {body}"
        );
        let request = format!(
            "POST /api/v1/apikeys HTTP/1.1\r\nHost: localhost\r\n\
             Authorization: Bearer {}\r\n\
             Content-Type: application/json\r\nContent-Length: {declared}\r\n\
             Connection: close\r\n\r\n{{}}",
            fx.owner
        );
        let (status, body) = app.raw_http(request.into_bytes()).await;
        assert_eq!(status, 413, "declared {declared} to apikeys: {body}");
        assert_eq!(body["code"], "payload_too_large", "{body}");
    }

    // The instance is still usable and nothing was initialized twice or half-created.
    let keys_now = fx.owner_call(Method::GET, "/api/v1/apikeys").await;
    assert_eq!(keys_now.data()["total"], 2, "{}", keys_now.text);
}
