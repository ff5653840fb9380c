//! `lark`: event callbacks (challenge, verification token, encrypt key) and `im/v1`
//! against the fake Lark Open API.

use reqwest::Method;
use serde_json::{json, Value};

use super::{app, settle};
use crate::helpers::fakes::lark::{
    encrypt, received, signed, text_message, FakeLark, BOT_OPEN_ID, ENCRYPT_KEY, VERIFICATION_TOKEN,
};
use crate::helpers::fixtures::{an_image_was_received, echo, PlatformRig, PNG};
use crate::helpers::{Response, TestApp};

async fn post(app: &TestApp, bot: &str, body: &Value, headers: &[(&str, String)]) -> Response {
    let raw = body.to_string();
    let mut req = app.request(Method::POST, &format!("/bots/{bot}"));
    for (name, value) in headers {
        req = req.header(name, value);
    }
    req.raw_json(raw).send().await
}

fn said(m: &Value) -> &str {
    m["content"]["text"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn callbacks_are_verified_and_messages_answered_in_p2p_and_when_mentioned_in_groups() {
    let app = app().await;
    let lark = FakeLark::start().await;
    let rig = PlatformRig::new(&app, "lark", lark.config()).await;
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(
        rt["bot_account_id"], BOT_OPEN_ID,
        "the app's credentials are checked before any event"
    );
    assert_eq!(
        rt["webhook_url"],
        format!("/bots/{}", rig.bot),
        "the callback URL to give Lark"
    );
    assert_eq!(
        rt["webhook_full_url"],
        format!("{}/bots/{}", app.settings().public_url(), rig.bot)
    );

    let challenge = json!({ "challenge": "ajls384kdjx98XX", "token": VERIFICATION_TOKEN, "type": "url_verification" });
    let res = post(&app, &rig.bot, &challenge, &[]).await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["challenge"], "ajls384kdjx98XX");
    let mut forged = challenge.clone();
    forged["token"] = json!("guess");
    assert_eq!(post(&app, &rig.bot, &forged, &[]).await.status, 401);
    rig.wait_log(&app, &rig.bot, "the verification token does not match")
        .await;

    let mut event = received(
        "ev1",
        text_message("om_1", "oc_p2p42", "p2p", "hello", false),
        "ou_42",
    );
    event["header"]["token"] = json!("guess");
    assert_eq!(
        post(&app, &rig.bot, &event, &[]).await.status,
        401,
        "an event with a wrong token"
    );
    event["header"]["token"] = json!(VERIFICATION_TOKEN);
    for _ in 0..2 {
        let res = post(&app, &rig.bot, &event, &[]).await;
        assert_eq!(res.status, 200, "{}", res.text);
    }
    let sent = lark.wait_sent_to("oc_p2p42", 1).await;
    assert_eq!(said(&sent[0]), echo(1, "hello"));
    assert_eq!(
        sent[0]["reply_to"], "om_1",
        "the answer replies to the message"
    );
    assert_eq!(sent[0]["msg_type"], "text");

    let chat = received(
        "ev2",
        text_message("om_2", "oc_group", "group", "just chatting", false),
        "ou_43",
    );
    post(&app, &rig.bot, &chat, &[]).await;
    settle().await;
    assert!(
        lark.sent_to("oc_group").is_empty(),
        "an unmentioned group message was answered"
    );
    let mention = received(
        "ev3",
        text_message("om_3", "oc_group", "group", "what time is it", true),
        "ou_43",
    );
    post(&app, &rig.bot, &mention, &[]).await;
    let sent = lark.wait_sent_to("oc_group", 1).await;
    assert_eq!(
        said(&sent[0]),
        format!("<at user_id=\"ou_43\"></at> {}", echo(1, "what time is it"))
    );
    settle().await;
    assert_eq!(
        lark.calls.of("message").len(),
        2,
        "a redelivered event is answered once"
    );
}

#[tokio::test]
async fn encrypted_callbacks_are_decrypted_and_signatures_checked() {
    let app = app().await;
    let lark = FakeLark::start().await;
    let mut config = lark.config();
    config["encrypt-key"] = json!(ENCRYPT_KEY);
    let rig = PlatformRig::new(&app, "lark", config).await;
    rig.wait_state(&app, &rig.bot, "running").await;

    let challenge =
        json!({ "challenge": "c-enc", "token": VERIFICATION_TOKEN, "type": "url_verification" });
    let res = post(&app, &rig.bot, &encrypt(ENCRYPT_KEY, &challenge), &[]).await;
    assert_eq!(res.body["challenge"], "c-enc", "{}", res.text);

    let plain = received(
        "ev1",
        text_message("om_1", "oc_p2p42", "p2p", "secret hello", false),
        "ou_42",
    );
    assert_eq!(
        post(&app, &rig.bot, &plain, &[]).await.status,
        401,
        "plain while a key is set"
    );
    rig.wait_log(&app, &rig.bot, "not encrypted").await;
    let wrong_key = encrypt("another-key", &plain);
    assert_eq!(post(&app, &rig.bot, &wrong_key, &[]).await.status, 401);
    rig.wait_log(&app, &rig.bot, "does not decrypt").await;
    let body = encrypt(ENCRYPT_KEY, &plain);
    let mut headers = signed(ENCRYPT_KEY, body.to_string().as_bytes());
    headers[2].1 = "0".repeat(64);
    assert_eq!(
        post(&app, &rig.bot, &body, &headers).await.status,
        401,
        "a forged signature"
    );
    rig.wait_log(&app, &rig.bot, "the signature does not match")
        .await;
    settle().await;
    assert!(lark.calls.of("message").is_empty());

    let headers = signed(ENCRYPT_KEY, body.to_string().as_bytes());
    let res = post(&app, &rig.bot, &body, &headers).await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        said(&lark.wait_sent_to("oc_p2p42", 1).await[0]),
        echo(1, "secret hello")
    );
}

#[tokio::test]
async fn images_are_received_and_sent_and_long_replies_split() {
    let app = app().await;
    let lark = FakeLark::start().await;
    let rig = PlatformRig::new(&app, "lark", lark.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let image = json!({ "message_id": "om_img", "chat_id": "oc_p2p42", "chat_type": "p2p", "message_type": "image",
                        "content": json!({ "image_key": "img_in_1" }).to_string() });
    post(&app, &rig.bot, &received("ev1", image, "ou_42"), &[]).await;
    lark.calls.wait("resource", 1).await;
    assert_eq!(lark.calls.of("resource")[0]["key"], "img_in_1");
    crate::helpers::fixtures::eventually("the image in the chain", 10, || async {
        an_image_was_received(&app).await.then_some(())
    })
    .await;

    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
    let res = rig
        .send_message(
            &app,
            json!({ "target_type": "person", "target_id": "ou_77", "message_chain": [
            { "type": "Plain", "text": "here:" },
            { "type": "Image", "url": lark.file_url("cat.png") },
            { "type": "Image", "base64": b64 },
        ] }),
        )
        .await;
    assert_eq!(res.data()["sent"], true, "{}", res.text);
    let sent = lark.sent_to("ou_77");
    assert_eq!(sent.len(), 3);
    assert!(
        sent.iter().all(|m| m["receive_id_type"] == "open_id"),
        "a person by open_id: {sent:?}"
    );
    assert_eq!(said(&sent[0]), "here:");
    assert_eq!(sent[1]["msg_type"], "image");
    assert_eq!(sent[1]["content"]["image_key"], "img_v2_001");
    let uploads = lark.calls.of("image_upload");
    assert_eq!(uploads.len(), 2);
    assert!(
        uploads[0]
            .to_string()
            .contains(&format!("<{} bytes>", PNG.len())),
        "{uploads:?}"
    );

    let long = "word ".repeat(1000).trim().to_string();
    let msg = received(
        "ev2",
        text_message("om_long", "oc_p2p42", "p2p", &long, false),
        "ou_42",
    );
    post(&app, &rig.bot, &msg, &[]).await;
    let sent = lark.wait_sent_to("oc_p2p42", 2).await;
    settle().await;
    let parts: Vec<&str> = sent.iter().map(said).collect();
    assert!(parts.iter().all(|p| p.chars().count() <= 4000));
    assert_eq!(
        parts.concat(),
        echo(1, &long),
        "(the image alone had no text to answer)"
    );
    assert_eq!(sent[0]["reply_to"], "om_long");
    assert_eq!(
        sent[1]["reply_to"],
        Value::Null,
        "only the first part replies"
    );
}

#[tokio::test]
async fn the_tenant_token_is_refreshed_and_an_unreachable_api_recovers() {
    let app = app().await;
    let lark = FakeLark::start().await;
    let rig = PlatformRig::new(&app, "lark", lark.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let first = received(
        "ev1",
        text_message("om_1", "oc_p2p42", "p2p", "one", false),
        "ou_42",
    );
    post(&app, &rig.bot, &first, &[]).await;
    lark.wait_sent_to("oc_p2p42", 1).await;
    let tokens = lark.calls.of("token").len();

    lark.expire_tokens();
    let second = received(
        "ev2",
        text_message("om_2", "oc_p2p42", "p2p", "two", false),
        "ou_42",
    );
    post(&app, &rig.bot, &second, &[]).await;
    let sent = lark.wait_sent_to("oc_p2p42", 2).await;
    assert_eq!(said(&sent[1]), echo(2, "two"));
    assert_eq!(
        lark.calls.of("token").len(),
        tokens + 1,
        "a fresh token after the stale one was refused"
    );
    assert!(!lark.calls.of("stale_token").is_empty());

    // A webhook platform cannot drop a connection; what it can do is be unreachable when a
    // reply is due. The callback is still acknowledged (Lark would redeliver it otherwise),
    // the reply is retried with back-off while the state shows the outage, and once Lark is
    // back it goes out once; the state returns to running.
    lark.proxy.break_link();
    let third = received(
        "ev3",
        text_message("om_3", "oc_p2p42", "p2p", "three", false),
        "ou_42",
    );
    assert_eq!(
        post(&app, &rig.bot, &third, &[]).await.status,
        200,
        "the callback is acknowledged"
    );
    let rt = rig.wait_state(&app, &rig.bot, "error").await;
    assert!(
        rt["state"]["error"]
            .as_str()
            .unwrap()
            .contains("Lark is unreachable"),
        "{rt}"
    );
    rig.wait_log(&app, &rig.bot, "retrying in").await;
    lark.proxy.mend();
    let sent = lark.wait_sent_to("oc_p2p42", 3).await;
    assert_eq!(said(&sent[2]), echo(3, "three"), "the reply went out late");
    assert_eq!(sent[2]["reply_to"], "om_3");
    rig.wait_state(&app, &rig.bot, "running").await;
    rig.wait_log(&app, &rig.bot, "reachable again").await;
    let fourth = received(
        "ev4",
        text_message("om_4", "oc_p2p42", "p2p", "four", false),
        "ou_42",
    );
    post(&app, &rig.bot, &fourth, &[]).await;
    let sent = lark.wait_sent_to("oc_p2p42", 4).await;
    assert_eq!(said(&sent[3]), echo(4, "four"));
    settle().await;
    assert_eq!(lark.sent_to("oc_p2p42").len(), 4, "nothing sent twice");
    let uuids: std::collections::HashSet<&str> =
        sent.iter().map(|m| m["uuid"].as_str().unwrap()).collect();
    assert_eq!(uuids.len(), 4, "every reply has its own dedup uuid");

    let mut wrong = lark.config();
    wrong["app_secret"] = json!("nope");
    let other = rig.another_bot(&app, "lark", wrong).await;
    let rt = rig.wait_state(&app, &other, "error").await;
    assert!(
        rt["state"]["error"].as_str().unwrap().contains("10014"),
        "{rt}"
    );
    assert!(!rt["state"]["error"].as_str().unwrap().contains("nope"));
}
