//! Malformed and non-object JSON bodies; arrays are not positional fields.

use reqwest::Method;

use super::fixture;
use crate::helpers::{OWNER_EMAIL, PASSWORD};

#[tokio::test]
async fn malformed_json_is_invalid_json_on_every_identity_body() {
    let fx = fixture().await;
    let bodies: Vec<(&str, Vec<u8>)> = vec![
        ("unterminated object", b"{".to_vec()),
        ("truncated value", br#"{"user":"#.to_vec()),
        ("single quotes", br#"{'user': 'a@example.com'}"#.to_vec()),
        ("not JSON at all", b"not json".to_vec()),
        ("trailing comma", br#"{"name":"a",}"#.to_vec()),
        ("trailing garbage", br#"{"name":"a"} x"#.to_vec()),
        ("two documents", br#"{"name":"a"}{"name":"b"}"#.to_vec()),
        ("NaN", br#"{"name": NaN}"#.to_vec()),
        ("bare word", b"undefined".to_vec()),
        ("invalid UTF-8", b"{\"name\":\"\xff\xfe\"}".to_vec()),
        ("raw control char", b"{\"name\":\"a\x01b\"}".to_vec()),
        ("byte order mark", b"\xef\xbb\xbf{}".to_vec()),
        ("lone surrogate escape", br#"{"name":"\ud800"}"#.to_vec()),
    ];
    for target in fx.body_targets() {
        for (what, body) in &bodies {
            let res = fx.send_raw(&target, body.clone()).await;
            res.expect_error(
                400,
                "invalid_json",
                &format!("{} with {what}", target.label()),
            );
            assert!(
                res.body["details"]["line"].is_u64(),
                "invalid_json names the position: {}",
                res.text
            );
        }
    }
}

#[tokio::test]
async fn non_object_bodies_are_invalid_request() {
    let fx = fixture().await;
    let bodies = ["[]", "\"x\"", "42", "1.5", "true", "null", "[{}]", "[null]"];
    for target in fx.body_targets() {
        for body in bodies {
            let res = fx.send_raw(&target, body).await;
            res.expect_error(
                400,
                "invalid_request",
                &format!("{} with {body}", target.label()),
            );
        }
    }
}

#[tokio::test]
async fn arrays_are_not_taken_as_positional_fields() {
    let fx = fixture().await;
    // An array holding the right number of values is still not an object: it must not be
    // taken as the fields in declaration order (serde's sequence form of a struct).
    let auth = fx.find(Method::POST, "/user/auth");
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    let keys = fx.find(Method::POST, "/apikeys");
    let rename = fx.case_target(Method::PUT, "WS");
    let cases = [
        (&auth, format!(r#"["{OWNER_EMAIL}","{PASSWORD}"]"#)),
        (&language, r#"["zh_Hans"]"#.to_string()),
        (&keys, r#"["array key", null, null, null]"#.to_string()),
        (&rename, r#"["Array Workspace"]"#.to_string()),
    ];
    // Every case is tried before failing, so the report lists all that were accepted.
    let mut accepted = Vec::new();
    for (target, body) in cases {
        let res = fx.send_raw(target, body.clone()).await;
        let what = format!("{} with {body}", target.label());
        if (res.status, res.body["code"].as_str()) == (400, Some("invalid_request")) {
            res.expect_error(400, "invalid_request", &what);
        } else {
            accepted.push(format!("{what} → {} {}", res.status, res.text));
        }
    }
    assert!(
        accepted.is_empty(),
        "array bodies must be 400 invalid_request: {accepted:#?}"
    );
    let current = fx
        .owner_call(Method::GET, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(current.data()["language"], "en_US");
}
