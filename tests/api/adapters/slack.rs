//! `slack`: the Events API (signed requests) and Socket Mode against the fake Slack.

use reqwest::Method;
use serde_json::{json, Value};

use super::{app, settle};
use crate::helpers::fakes::slack::{
    callback, direct, in_channel, mention, signed, FakeSlack, BOT_NAME, BOT_USER, SIGNING_SECRET,
};
use crate::helpers::fixtures::{an_image_was_received, echo, eventually, PlatformRig, PNG};
use crate::helpers::{Response, TestApp};

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

/// POSTs `body` to the bot's URL signed with `secret` at `ts`.
async fn deliver(app: &TestApp, bot: &str, body: &Value, secret: &str, ts: i64) -> Response {
    let raw = body.to_string();
    let mut req = app.request(Method::POST, &format!("/bots/{bot}"));
    for (name, value) in signed(secret, ts, raw.as_bytes()) {
        req = req.header(name, &value);
    }
    req.raw_json(raw).send().await
}

#[tokio::test]
async fn events_api_verifies_signatures_answers_the_challenge_and_threads_mentions() {
    let app = app().await;
    let slack = FakeSlack::start().await;
    let rig = PlatformRig::new(&app, "slack", slack.events_config()).await;
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(
        rt["bot_account_id"], BOT_USER,
        "auth.test is checked before the first event"
    );
    assert_eq!(rt["state"]["bot_account_name"], BOT_NAME);
    assert_eq!(
        rt["webhook_full_url"],
        format!("{}/bots/{}", app.settings().public_url(), rig.bot),
        "the Request URL to give Slack"
    );
    assert_eq!(rt["webhook_url"], format!("/bots/{}", rig.bot));

    let challenge = json!({ "token": "t", "challenge": "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", "type": "url_verification" });
    let res = deliver(&app, &rig.bot, &challenge, SIGNING_SECRET, now()).await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["challenge"], challenge["challenge"]);

    let dm = callback(direct("1.000001", "U42", "hello"));
    let res = deliver(&app, &rig.bot, &dm, "not-the-secret", now()).await;
    assert_eq!(res.status, 401, "a wrong signature");
    rig.wait_log(&app, &rig.bot, "the signature does not match")
        .await;
    let res = deliver(&app, &rig.bot, &dm, SIGNING_SECRET, now() - 600).await;
    assert_eq!(res.status, 401, "a replayed (stale) request");
    rig.wait_log(&app, &rig.bot, "outside the 5-minute window")
        .await;
    let res = app
        .request(Method::POST, &format!("/bots/{}", rig.bot))
        .json(&dm)
        .send()
        .await;
    assert_eq!(res.status, 401, "an unsigned request");
    settle().await;
    assert!(slack.posted_to("DU42").is_empty());

    let res = deliver(&app, &rig.bot, &dm, SIGNING_SECRET, now()).await;
    assert_eq!(res.status, 200, "{}", res.text);
    let posted = slack.wait_posted_to("DU42", 1).await;
    assert_eq!(posted[0]["text"], echo(1, "hello"));
    assert!(
        posted[0].get("thread_ts").is_none(),
        "a DM is answered in the conversation"
    );

    let chat = callback(in_channel("2.000001", "C1", "U43", "just chatting"));
    deliver(&app, &rig.bot, &chat, SIGNING_SECRET, now()).await;
    settle().await;
    assert!(
        slack.posted_to("C1").is_empty(),
        "an unmentioned channel message was answered"
    );

    let text = format!("<@{BOT_USER}> what time is it");
    let both = [
        callback(in_channel("3.000001", "C1", "U43", &text)),
        callback(mention("3.000001", "C1", "U43", &text)),
    ];
    for event in &both {
        let res = deliver(&app, &rig.bot, event, SIGNING_SECRET, now()).await;
        assert_eq!(res.status, 200, "{}", res.text);
    }
    let posted = slack.wait_posted_to("C1", 1).await;
    assert_eq!(
        posted[0]["text"],
        format!("<@U43> {}", echo(1, "what time is it"))
    );
    assert_eq!(
        posted[0]["thread_ts"], "3.000001",
        "answered in a thread of the message"
    );

    let mut in_thread = mention(
        "4.000001",
        "C1",
        "U43",
        &format!("<@{BOT_USER}> and tomorrow?"),
    );
    in_thread["thread_ts"] = json!("3.000001");
    deliver(&app, &rig.bot, &callback(in_thread), SIGNING_SECRET, now()).await;
    let posted = slack.wait_posted_to("C1", 2).await;
    assert_eq!(
        posted[1]["thread_ts"], "3.000001",
        "a thread reply stays in its thread"
    );
    settle().await;
    assert_eq!(
        slack.calls.of("chat.postMessage").len(),
        3,
        "the mention and its message answered once"
    );
}

#[tokio::test]
async fn socket_mode_acknowledges_envelopes_and_survives_drops_and_refreshes() {
    let app = app().await;
    let slack = FakeSlack::start().await;
    let rig = PlatformRig::new(&app, "slack", slack.socket_config()).await;
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(rt["bot_account_id"], BOT_USER);
    slack.push(direct("1.000001", "U42", "hello"));
    let posted = slack.wait_posted_to("DU42", 1).await;
    assert_eq!(posted[0]["text"], echo(1, "hello"));
    eventually("the envelope acknowledged", 10, || async {
        (slack.unacked() == 0).then_some(())
    })
    .await;

    slack.drop_connection();
    slack.push(direct("2.000001", "U42", "during"));
    let posted = slack.wait_posted_to("DU42", 2).await;
    assert_eq!(
        posted[1]["text"],
        echo(2, "during"),
        "redelivered on the new connection"
    );
    assert!(slack.calls.of("socket_connect").len() >= 2);
    rig.wait_log(&app, &rig.bot, "reconnecting").await;

    let connects = slack.calls.of("socket_connect").len();
    slack.ask_to_reconnect();
    eventually("a new connection after disconnect", 10, || async {
        (slack.calls.of("socket_connect").len() > connects).then_some(())
    })
    .await;
    rig.wait_state(&app, &rig.bot, "running").await;
    slack.push(direct("3.000001", "U42", "after"));
    let posted = slack.wait_posted_to("DU42", 3).await;
    assert_eq!(posted[2]["text"], echo(3, "after"));
    settle().await;
    assert_eq!(slack.posted_to("DU42").len(), 3, "nothing answered twice");
}

#[tokio::test]
async fn a_shared_image_is_received_and_images_are_uploaded() {
    let app = app().await;
    let slack = FakeSlack::start().await;
    let rig = PlatformRig::new(&app, "slack", slack.socket_config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let mut shared = direct("1.000001", "U42", "look");
    shared["subtype"] = json!("file_share");
    shared["files"] =
        json!([{ "id": "F9", "mimetype": "image/png", "url_private": slack.file_url("cat.png") }]);
    slack.push(shared);
    let posted = slack.wait_posted_to("DU42", 1).await;
    assert_eq!(posted[0]["text"], echo(1, "look"));
    assert_eq!(
        slack.calls.of("download").len(),
        1,
        "fetched with the bot token"
    );
    assert!(an_image_was_received(&app).await);

    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
    let res = rig
        .send_message(
            &app,
            json!({ "target_type": "group", "target_id": "C7", "message_chain": [
            { "type": "Plain", "text": "here:" },
            { "type": "Image", "url": "https://example.com/cat.png" },
            { "type": "Image", "base64": b64 },
        ] }),
        )
        .await;
    assert_eq!(res.data()["sent"], true, "{}", res.text);
    let posted = slack.posted_to("C7");
    assert_eq!(posted[0]["text"], "here:");
    assert_eq!(
        posted[1]["blocks"][0]["image_url"],
        "https://example.com/cat.png"
    );
    let reserve = &slack.calls.of("files.getUploadURLExternal")[0];
    assert_eq!(reserve["length"], PNG.len().to_string());
    assert_eq!(slack.calls.of("upload")[0]["bytes"], PNG.len());
    assert_eq!(
        slack.calls.of("files.completeUploadExternal")[0]["channel_id"],
        "C7"
    );
}

#[tokio::test]
async fn a_long_reply_is_split_at_slacks_limit() {
    let app = app().await;
    let slack = FakeSlack::start().await;
    let rig = PlatformRig::new(&app, "slack", slack.socket_config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let long = "word ".repeat(1000).trim().to_string();
    slack.push(direct("1.000001", "U42", &long));
    slack.wait_posted_to("DU42", 2).await;
    settle().await;
    let posted = slack.posted_to("DU42");
    assert_eq!(posted.len(), 2);
    let parts: Vec<&str> = posted.iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert!(parts.iter().all(|p| p.chars().count() <= 4000));
    assert_eq!(parts.concat(), echo(1, &long));
}

#[tokio::test]
async fn wrong_tokens_show_in_the_state() {
    let app = app().await;
    let slack = FakeSlack::start().await;
    let mut socket = slack.socket_config();
    socket["app_token"] = json!("xapp-wrong");
    let rig = PlatformRig::new(&app, "slack", socket).await;
    let rt = rig.wait_state(&app, &rig.bot, "error").await;
    assert!(
        rt["state"]["error"]
            .as_str()
            .unwrap()
            .contains("apps.connections.open: invalid_auth"),
        "{rt}"
    );

    let mut events = slack.events_config();
    events["bot_token"] = json!("xoxb-wrong");
    let other = rig.another_bot(&app, "slack", events).await;
    let rt = rig.wait_state(&app, &other, "error").await;
    assert!(
        rt["state"]["error"]
            .as_str()
            .unwrap()
            .contains("auth.test: invalid_auth"),
        "{rt}"
    );
    rig.wait_log(&app, &other, "invalid_auth").await;
}

/// The Events API has no connection to drop; Slack "dropping" is its Web API becoming
/// unreachable. A bot whose Slack cannot be reached shows the failure in its state and log
/// and checks again with back-off (not blocking its other bots); once Slack answers it
/// runs, and events are answered.
#[tokio::test]
async fn events_api_waits_out_an_unreachable_slack_with_back_off() {
    let app = app().await;
    let slack = FakeSlack::start().await;
    let proxy =
        crate::helpers::ChaosProxy::start(crate::helpers::host_port(&slack.api_url())).await;
    proxy.break_link();
    let mut config = slack.events_config();
    config["api_base_url"] = json!(format!("http://127.0.0.1:{}/api", proxy.port));
    let rig = PlatformRig::new(&app, "slack", config).await;
    let rt = rig.wait_state(&app, &rig.bot, "error").await;
    assert!(
        rt["state"]["error"].as_str().unwrap().contains("auth.test"),
        "{rt}"
    );
    assert!(rt["bot_account_id"].is_null() || rt["bot_account_id"] == "");
    eventually("auth.test retried with back-off", 10, || async {
        let rt = rig.runtime(&app).await;
        (rt["logs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["level"] == "error")
            .count()
            >= 2)
            .then_some(())
    })
    .await;
    let other = rig.another_bot(&app, "slack", slack.events_config()).await;
    rig.wait_state(&app, &other, "running").await;

    proxy.mend();
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(rt["bot_account_id"], BOT_USER);
    let dm = callback(direct("1.000001", "U42", "back"));
    let res = deliver(&app, &rig.bot, &dm, SIGNING_SECRET, now()).await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        slack.wait_posted_to("DU42", 1).await[0]["text"],
        echo(1, "back")
    );
    settle().await;
    assert_eq!(slack.posted_to("DU42").len(), 1);
}
