//! `X-LB-Idempotency-Key`: a repeated key is 40901; refused requests do not use up a key;
//! keys are per bot.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use super::now;
use crate::helpers::fixtures::{
    post_with_headers, reply_text, signature_headers, text, Rig, INBOUND,
};
use crate::helpers::spawn_app;

#[tokio::test]
async fn a_repeated_idempotency_key_is_refused_with_40901() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let with_key = |key: &str| [("x-lb-idempotency-key", key.to_string())];
    let body = |words: &str| text("s1", words).to_string().into_bytes();

    let first = rig.send_raw(&app, "", &body("a"), &with_key("k-1")).await;
    assert_eq!(first.status, 202, "{}", first.text);
    let replay = rig.send_raw(&app, "", &body("a"), &with_key("k-1")).await;
    replay.assert_refused(409, 40901, "the same key again");
    let other_body = rig.send_raw(&app, "", &body("b"), &with_key("k-1")).await;
    other_body.assert_refused(409, 40901, "the same key with another body");
    let second = rig.send_raw(&app, "", &body("c"), &with_key("k-2")).await;
    assert_eq!(second.status, 202, "a different key: {}", second.text);

    // A refused request does not use up its key: neither a bad signature nor a bad body.
    let forged = body("d");
    let mut headers = signature_headers("not-the-secret", &now().to_string(), &forged);
    headers.push(("x-lb-idempotency-key", "k-3".into()));
    let res = post_with_headers(&app, &format!("/bots/{}", rig.bot), &forged, &headers).await;
    res.assert_refused(401, 40101, "forged request with a key");
    let res = rig.send_raw(&app, "", &body("d"), &with_key("k-3")).await;
    assert_eq!(
        res.status, 202,
        "a forged request burnt the key: {}",
        res.text
    );
    let invalid = json!({ "session_id": "s1", "message": [] }).to_string();
    let res = rig
        .send_raw(&app, "", invalid.as_bytes(), &with_key("k-4"))
        .await;
    res.assert_refused(400, 40002, "invalid message with a key");
    let res = rig.send_raw(&app, "", &body("e"), &with_key("k-4")).await;
    assert_eq!(
        res.status, 202,
        "an invalid message burnt the key: {}",
        res.text
    );

    // Keys are per bot.
    let other = app
        .send_as(
            &rig.owner,
            Method::POST,
            "/api/v1/platform/bots",
            &json!({ "name": "other", "adapter": "http_bot", "enable": true,
                "adapter_config": { "inbound_secret": INBOUND,
                    "callback_url": format!("{}/cb", rig.callbacks.uri()) } }),
        )
        .await;
    let other = other.data()["uuid"].as_str().unwrap().to_string();
    let body_f = text("s9", "f").to_string().into_bytes();
    let mut headers = signature_headers(INBOUND, &now().to_string(), &body_f);
    headers.push(("x-lb-idempotency-key", "k-1".into()));
    let res = post_with_headers(&app, &format!("/bots/{other}"), &body_f, &headers).await;
    assert_eq!(res.status, 202, "k-1 on another bot: {}", res.text);

    // Exactly the five accepted messages were answered.
    let callbacks = rig.callbacks(5).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rig.callback_count().await, 5);
    let texts: BTreeSet<String> = callbacks
        .iter()
        .map(|(b, _, _)| reply_text(b).split_once(": ").unwrap().1.to_string())
        .collect();
    assert_eq!(
        texts,
        ["a", "c", "d", "e", "f"]
            .into_iter()
            .map(String::from)
            .collect()
    );
}
