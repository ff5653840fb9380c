//! `discord`: the Gateway and REST against the fake Discord.

use serde_json::json;

use super::{app, settle};
use crate::helpers::fakes::discord::{
    direct_message, guild_message, FakeDiscord, BOT_ID, USERNAME,
};
use crate::helpers::fixtures::{an_image_was_received, echo, eventually, PlatformRig, PNG};

#[tokio::test]
async fn a_direct_message_is_answered_and_a_guild_message_only_when_mentioned() {
    let app = app().await;
    let dc = FakeDiscord::start("bot-token").await;
    let rig = PlatformRig::new(&app, "discord", dc.config()).await;
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(rt["bot_account_id"], BOT_ID);
    assert_eq!(rt["state"]["bot_account_name"], USERNAME);
    let identify = &dc.calls.of("identify")[0];
    let token = identify["token"].as_str().unwrap();
    assert_eq!(token.strip_prefix("Bot ").unwrap_or(token), "bot-token");
    assert_eq!(
        dc.calls.of("connect")[0]["path"],
        "/?v=10&encoding=json",
        "gateway v10, JSON, no compression"
    );
    let intents = identify["intents"].as_u64().unwrap();
    for bit in [0, 9, 12, 15] {
        assert_ne!(
            intents & (1 << bit),
            0,
            "intent bit {bit} missing from {intents}"
        );
    }
    dc.calls.wait("heartbeat", 1).await;

    dc.push(direct_message(1, "42", "hello"));
    let sent = dc.wait_sent_to("dm42", 1).await;
    assert_eq!(sent[0]["content"], echo(1, "hello"));

    dc.push(guild_message(2, "c1", "43", "just chatting", &[]));
    settle().await;
    assert!(
        dc.sent_to("c1").is_empty(),
        "an unmentioned guild message was answered"
    );
    assert_eq!(rig.model_calls().await, 1);

    dc.push(guild_message(
        3,
        "c1",
        "43",
        &format!("<@{BOT_ID}> what time is it"),
        &[BOT_ID],
    ));
    let sent = dc.wait_sent_to("c1", 1).await;
    assert_eq!(
        sent[0]["content"],
        format!("<@43> {}", echo(1, "what time is it")),
        "at the sender in a guild"
    );
    assert_eq!(
        sent[0]["message_reference"]["message_id"], "3",
        "the answer quotes the message"
    );

    let mut reply = guild_message(4, "c1", "43", "and tomorrow?", &[]);
    reply["referenced_message"] =
        json!({ "id": "990001", "author": { "id": BOT_ID, "bot": true } });
    dc.push(reply);
    let sent = dc.wait_sent_to("c1", 2).await;
    assert_eq!(
        sent[1]["content"],
        format!("<@43> {}", echo(2, "and tomorrow?")),
        "a reply to the bot addresses it"
    );

    let mut own = guild_message(5, "c1", BOT_ID, &format!("<@{BOT_ID}> echo"), &[BOT_ID]);
    own["author"]["bot"] = json!(true);
    dc.push(own);
    settle().await;
    assert_eq!(
        dc.calls.of("message").len(),
        3,
        "every message answered once, the bot's own never"
    );
}

#[tokio::test]
async fn an_attachment_is_received_and_images_are_sent() {
    let app = app().await;
    let dc = FakeDiscord::start("bot-token").await;
    let rig = PlatformRig::new(&app, "discord", dc.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let mut dm = direct_message(1, "42", "look");
    dm["attachments"] = json!([{ "id": "a1", "filename": "cat.png", "content_type": "image/png",
                                 "url": "https://cdn.example.com/cat.png" }]);
    dc.push(dm);
    let sent = dc.wait_sent_to("dm42", 1).await;
    assert_eq!(sent[0]["content"], echo(1, "look"));
    assert!(
        an_image_was_received(&app).await,
        "the attachment is in the message chain"
    );

    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
    let res = rig
        .send_message(
            &app,
            json!({ "target_type": "person", "target_id": "77", "message_chain": [
            { "type": "Plain", "text": "here:" },
            { "type": "Image", "url": "https://example.com/cat.png" },
            { "type": "Image", "base64": b64 },
        ] }),
        )
        .await;
    assert_eq!(res.data()["sent"], true);
    assert_eq!(
        dc.calls.of("open_dm")[0]["recipient_id"],
        "77",
        "a DM channel is opened for a person"
    );
    let sent = dc.wait_sent_to("dm77", 3).await;
    assert_eq!(sent[0]["content"], "here:");
    assert_eq!(
        sent[1]["embeds"][0]["image"]["url"],
        "https://example.com/cat.png"
    );
    assert_eq!(
        sent[2]["files"][0],
        format!("<{} bytes>", PNG.len()),
        "uploaded: {}",
        sent[2]
    );

    let res = rig
        .send_message(&app, json!({ "target_type": "group", "target_id": "c9", "message_chain": [{ "type": "Plain", "text": "hi all" }] }))
        .await;
    assert_eq!(res.data()["sent"], true);
    assert_eq!(
        dc.sent_to("c9")[0]["content"],
        "hi all",
        "a group target is a channel"
    );
}

#[tokio::test]
async fn a_long_reply_is_split_at_discords_limit() {
    let app = app().await;
    let dc = FakeDiscord::start("bot-token").await;
    let rig = PlatformRig::new(&app, "discord", dc.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let long = "word ".repeat(700).trim().to_string();
    dc.push(direct_message(1, "42", &long));
    dc.wait_sent_to("dm42", 2).await;
    settle().await;
    let sent = dc.sent_to("dm42");
    assert_eq!(sent.len(), 2);
    let parts: Vec<&str> = sent
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert!(parts.iter().all(|p| p.chars().count() <= 2000));
    assert_eq!(parts.concat(), echo(1, &long));
    assert!(
        sent[1].get("message_reference").is_none(),
        "only the first part quotes"
    );
}

#[tokio::test]
async fn a_dropped_gateway_is_resumed_and_missed_events_are_answered_once() {
    let app = app().await;
    let dc = FakeDiscord::start("bot-token").await;
    let rig = PlatformRig::new(&app, "discord", dc.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    dc.push(direct_message(1, "42", "before"));
    dc.wait_sent_to("dm42", 1).await;

    dc.drop_connection();
    dc.push(direct_message(2, "42", "during"));
    let resume = dc.calls.wait("resume", 1).await;
    assert_eq!(resume[0]["session_id"], "session-1");
    assert_eq!(
        resume[0]["replayed"], 1,
        "the missed event is replayed: {resume:?}"
    );
    let sent = dc.wait_sent_to("dm42", 2).await;
    assert_eq!(sent[1]["content"], echo(2, "during"));
    rig.wait_state(&app, &rig.bot, "running").await;
    rig.wait_log(&app, &rig.bot, "reconnecting").await;
    rig.wait_log(&app, &rig.bot, "session resumed").await;

    dc.push(direct_message(3, "42", "after"));
    let sent = dc.wait_sent_to("dm42", 3).await;
    assert_eq!(sent[2]["content"], echo(3, "after"));
    settle().await;
    assert_eq!(dc.sent_to("dm42").len(), 3, "nothing answered twice");
    assert_eq!(
        dc.calls.of("identify").len(),
        1,
        "resumed, not identified again"
    );
}

#[tokio::test]
async fn a_refused_token_shows_in_the_state_and_is_retried_with_back_off() {
    let app = app().await;
    let dc = FakeDiscord::start("bot-token").await;
    let mut wrong = dc.config();
    wrong["token"] = json!("not-the-token");
    let rig = PlatformRig::new(&app, "discord", wrong).await;
    let rt = rig.wait_state(&app, &rig.bot, "error").await;
    let error = rt["state"]["error"].as_str().unwrap();
    assert!(error.contains("401"), "{error}");
    assert!(
        !error.contains("not-the-token"),
        "the token is not in the error"
    );

    let good = rig.another_bot(&app, "discord", dc.config()).await;
    rig.wait_state(&app, &good, "running").await;
    dc.revoke_token();
    dc.drop_connection();
    let rt = rig.wait_state(&app, &good, "error").await;
    assert!(
        rt["state"]["error"].as_str().unwrap().contains("4004"),
        "{rt}"
    );
    rig.wait_log(&app, &good, "authentication failed").await;
    eventually("the gateway retried with back-off", 10, || async {
        (dc.calls.of("refused").len() >= 2).then_some(())
    })
    .await;
    let attempts = dc.calls.of("connect").len();
    settle().await;
    assert!(
        dc.calls.of("connect").len() <= attempts + 2,
        "retries are spaced out"
    );
}
