//! Bad input on the `http_bot` ingress `/bots/{bot_uuid}` (`/sync`, `/reset`): unknown and
//! malformed bot paths are 40401, malformed bodies 40001/40002, blank and over-long session
//! ids 40002, bodies over the limit 41301 — no callback, no record, no change to the
//! conversation.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{body_for, post_signed, signature_headers, Rig, INBOUND};
use crate::helpers::spawn_app;

/// The default `api.body_limit`.
const LIMIT: usize = 1024 * 1024;
/// The adapter's three endpoints, below `/bots/{bot_uuid}`.
const ENDPOINTS: [&str; 3] = ["", "/sync", "/reset"];

#[tokio::test]
async fn unknown_and_malformed_bot_paths_are_404() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    // A bot deleted just now.
    let gone = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "gone", "adapter": "http_bot", "enable": true,
                "adapter_config": { "inbound_secret": INBOUND,
                    "callback_url": format!("{}/cb", rig.callbacks.uri()) } }),
        )
        .await;
    let gone = gone.data()["uuid"].as_str().unwrap().to_string();
    app.request(Method::DELETE, &format!("/api/v1/platform/bots/{gone}"))
        .bearer(&rig.owner)
        .send()
        .await
        .data();
    let random = uuid::Uuid::new_v4().to_string();
    for suffix in ENDPOINTS {
        let body = body_for(suffix, "s1", "nobody home");
        for bot in [random.as_str(), gone.as_str(), "not-a-uuid", "1"] {
            let res = post_signed(&app, bot, suffix, INBOUND, &body).await;
            res.assert_refused(404, 40401, &format!("POST /bots/{bot}{suffix}"));
        }
    }
    rig.assert_untouched(&app, before).await;
}

#[tokio::test]
async fn malformed_bodies_are_refused_with_400() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    let plain = json!([{ "type": "Plain", "text": "hi" }]);
    let not_json: [&[u8]; 4] = [b"{\"session_id\":", b"not json", b"", b"{\"a\":1}}"];
    let messages = [
        ("missing session_id", json!({ "message": plain })),
        ("missing message", json!({ "session_id": "s1" })),
        (
            "empty message array",
            json!({ "session_id": "s1", "message": [] }),
        ),
        (
            "unknown segment type",
            json!({ "session_id": "s1", "message": [{ "type": "Sticker", "text": "hi" }] }),
        ),
        (
            "segment without type",
            json!({ "session_id": "s1", "message": [{ "text": "hi" }] }),
        ),
        (
            "lower-case segment type",
            json!({ "session_id": "s1", "message": [{ "type": "plain", "text": "hi" }] }),
        ),
        (
            "message is a string",
            json!({ "session_id": "s1", "message": "hi" }),
        ),
        (
            "segment is a string",
            json!({ "session_id": "s1", "message": ["hi"] }),
        ),
        (
            "blank session_id",
            json!({ "session_id": "  ", "message": plain }),
        ),
        (
            "numeric session_id",
            json!({ "session_id": 5, "message": plain }),
        ),
        (
            "unknown session_type",
            json!({ "session_id": "s1", "session_type": "channel", "message": plain }),
        ),
        ("array body", json!([])),
        ("string body", json!("hello")),
        ("null body", Value::Null),
    ];
    let resets = [
        ("empty object", json!({})),
        ("missing session_id", json!({ "session_type": "person" })),
        ("numeric session_id", json!({ "session_id": 5 })),
        (
            "unknown session_type",
            json!({ "session_id": "s1", "session_type": "channel" }),
        ),
        ("array body", json!([])),
    ];
    for suffix in ENDPOINTS {
        for raw in not_json {
            let res = post_signed(&app, &rig.bot, suffix, INBOUND, raw).await;
            res.assert_refused(
                400,
                40001,
                &format!("POST {suffix:?} {:?}", String::from_utf8_lossy(raw)),
            );
        }
        let cases: &[(&str, Value)] = if suffix == "/reset" {
            &resets
        } else {
            &messages
        };
        for (case, body) in cases {
            let res =
                post_signed(&app, &rig.bot, suffix, INBOUND, body.to_string().as_bytes()).await;
            res.assert_refused(400, 40002, &format!("POST {suffix:?}: {case}"));
        }
    }
    rig.assert_untouched(&app, before).await;
}

/// `/reset` validates its `session_id` like a message does (1 to 255 characters).
#[tokio::test]
async fn reset_refuses_blank_and_overlong_session_ids() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    let mut accepted = Vec::new();
    for (case, session) in [
        ("empty", String::new()),
        ("blank", "   ".to_string()),
        ("256 characters", "x".repeat(256)),
    ] {
        let body = json!({ "session_id": session }).to_string();
        let res = post_signed(&app, &rig.bot, "/reset", INBOUND, body.as_bytes()).await;
        if res.status != 400 || res.body["code"] != 40002 {
            accepted.push(format!("{case}: {} {}", res.status, res.text));
        }
    }
    assert!(
        accepted.is_empty(),
        "/reset accepted session ids a message may not carry: {accepted:#?}"
    );
    rig.assert_untouched(&app, before).await;
}

/// A well-formed message padded with trailing spaces to exactly `len` bytes.
fn padded(suffix: &str, len: usize) -> Vec<u8> {
    let mut body = body_for(suffix, "s1", "big");
    assert!(body.len() <= len);
    body.resize(len, b' ');
    body
}

#[tokio::test]
async fn bodies_over_the_limit_are_refused_with_41301() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let before = rig.baseline(&app).await;
    for suffix in ENDPOINTS {
        let path = format!("/bots/{}{suffix}", rig.bot);
        let body = padded(suffix, LIMIT + 1);
        let res = post_signed(&app, &rig.bot, suffix, INBOUND, &body).await;
        res.assert_refused(413, 41301, &format!("POST {suffix:?}: limit + 1 bytes"));
        let body = padded(suffix, 3 * LIMIT);
        let res = post_signed(&app, &rig.bot, suffix, INBOUND, &body).await;
        res.assert_refused(413, 41301, &format!("POST {suffix:?}: 3 MiB"));
        // Chunked, without a Content-Length.
        let headers =
            signature_headers(INBOUND, &chrono::Utc::now().timestamp().to_string(), &body);
        let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
            body.chunks(64 * 1024).map(|c| Ok(c.to_vec())).collect();
        let mut req = app
            .request(Method::POST, &path)
            .raw_json(reqwest::Body::wrap_stream(futures_util::stream::iter(
                chunks,
            )));
        for (k, v) in &headers {
            req = req.header(k, v);
        }
        let res = req.send().await;
        res.assert_refused(413, 41301, &format!("POST {suffix:?}: chunked 3 MiB"));
    }
    rig.assert_untouched(&app, before).await;
    // Exactly the limit is fine.
    let res = rig
        .send_raw(&app, "/sync", &padded("/sync", LIMIT), &[])
        .await;
    assert_eq!(res.data()["text"], "echo(3): big");
}
