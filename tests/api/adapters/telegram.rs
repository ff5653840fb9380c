//! `telegram`: long polling and webhooks against the fake Bot API.

use serde_json::json;

use super::{app, settle};
use crate::helpers::fakes::telegram::{group, private, FakeTelegram, BOT_ID, USERNAME};
use crate::helpers::fixtures::{an_image_was_received, echo, eventually, PlatformRig};

#[tokio::test]
async fn a_private_message_is_answered_and_a_group_message_only_when_mentioned() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&app, "telegram", tg.config()).await;
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(rt["bot_account_id"], BOT_ID.to_string());
    assert_eq!(rt["state"]["bot_account_name"], USERNAME);
    tg.calls.wait("deleteWebhook", 1).await;

    tg.push(private(1, 42, "hello"));
    let sent = tg.wait_sent_to(42, 1).await;
    assert_eq!(sent[0]["text"], echo(1, "hello"));

    tg.push(group(2, -100, 43, "just chatting"));
    settle().await;
    assert!(
        tg.sent_to(-100).is_empty(),
        "an unmentioned group message was answered"
    );
    assert_eq!(rig.model_calls().await, 1);

    tg.push(group(3, -100, 43, &format!("@{USERNAME} what time is it")));
    let sent = tg.wait_sent_to(-100, 1).await;
    assert_eq!(sent[0]["text"], echo(1, "what time is it"));
    assert_eq!(
        sent[0]["reply_parameters"]["message_id"], 3,
        "the answer quotes the message"
    );

    let mut reply = group(4, -100, 43, "and tomorrow?");
    reply["reply_to_message"] =
        json!({ "message_id": 5001, "from": { "id": BOT_ID, "is_bot": true } });
    tg.push(reply);
    let sent = tg.wait_sent_to(-100, 2).await;
    assert_eq!(
        sent[1]["text"],
        echo(2, "and tomorrow?"),
        "a reply to the bot addresses it"
    );
    settle().await;
    assert_eq!(
        tg.calls.of("sendMessage").len(),
        3,
        "every message answered once"
    );
}

#[tokio::test]
async fn a_photo_is_received_and_images_are_sent() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&app, "telegram", tg.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let mut photo = private(1, 42, "");
    photo.as_object_mut().unwrap().remove("text");
    photo["caption"] = json!("look");
    photo["photo"] = json!([{ "file_id": "small", "width": 90, "height": 90 }, { "file_id": "big", "width": 800, "height": 800 }]);
    tg.push(photo);
    let sent = tg.wait_sent_to(42, 1).await;
    assert_eq!(sent[0]["text"], echo(1, "look"));
    assert_eq!(
        tg.calls.of("getFile")[0]["file_id"],
        "big",
        "the largest size is fetched"
    );
    assert_eq!(tg.calls.of("download").len(), 1);
    assert!(
        an_image_was_received(&app).await,
        "the photo is in the message chain"
    );

    let res = rig
        .send_message(
            &app,
            json!({ "target_type": "person", "target_id": "42", "message_chain": [
            { "type": "Plain", "text": "here:" },
            { "type": "Image", "url": "https://example.com/cat.png" },
            { "type": "Image", "base64": base64_png() },
        ] }),
        )
        .await;
    assert_eq!(res.data()["sent"], true);
    let photos = tg.calls.wait("sendPhoto", 2).await;
    assert_eq!(photos[0]["photo"], "https://example.com/cat.png");
    assert!(
        photos[1]["photo"].as_str().unwrap().contains("bytes"),
        "uploaded: {}",
        photos[1]
    );
    assert_eq!(photos[1]["chat_id"], "42");
}

#[tokio::test]
async fn an_answers_inline_image_is_sent_as_a_photo_and_its_image_url_is_not() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&app, "telegram", tg.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let data_url = format!("data:image/png;base64,{}", base64_png());
    rig.answer_with_images("Here is a cat", &[&data_url, "https://img.example/cat.png"])
        .await;
    tg.push(private(1, 42, "a cat, please"));
    let photos = tg.calls.wait("sendPhoto", 1).await;
    assert!(
        photos[0]["photo"].as_str().unwrap().contains("bytes"),
        "the data URL's image is uploaded: {}",
        photos[0]
    );
    assert!(
        photos
            .iter()
            .all(|p| p["chat_id"] == "42" || p["chat_id"] == 42),
        "{photos:?}"
    );
    let sent = tg.wait_sent_to(42, 1).await;
    assert_eq!(sent[0]["text"], "Here is a cat");
    settle().await;
    // The URL in the answer is not sent (the server fetches nothing a model names).
    assert_eq!(
        tg.calls.of("sendPhoto").len(),
        1,
        "the inline image sent once"
    );
}

fn base64_png() -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(crate::helpers::fixtures::PNG)
}

#[tokio::test]
async fn a_long_reply_is_split_at_telegrams_limit() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&app, "telegram", tg.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let long = "word ".repeat(1200).trim().to_string();
    tg.push(private(1, 42, &long));
    tg.wait_sent_to(42, 2).await;
    settle().await;
    let sent = tg.sent_to(42);
    assert_eq!(sent.len(), 2);
    let parts: Vec<&str> = sent.iter().map(|m| m["text"].as_str().unwrap()).collect();
    assert!(parts.iter().all(|p| p.chars().count() <= 4096));
    assert_eq!(parts.concat(), echo(1, &long));
    assert!(
        sent[0].get("reply_parameters").is_none() || sent[0]["reply_parameters"]["message_id"] == 1
    );
    assert!(
        sent[1].get("reply_parameters").is_none(),
        "only the first part quotes"
    );
}

#[tokio::test]
async fn markdown_is_rendered_and_streamed_replies_edit_the_message() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let mut config = tg.config();
    config["markdown_card"] = json!(true);
    config["enable-stream-reply"] = json!(true);
    let rig = PlatformRig::new(&app, "telegram", config).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    tg.push(private(1, 42, "**bold** <b>"));
    let sent = tg.wait_sent_to(42, 1).await;
    assert_eq!(sent[0]["parse_mode"], "HTML");
    let edits = tg.calls.wait("editMessageText", 1).await;
    let last = edits.last().unwrap();
    assert_eq!(last["text"], "echo(1): <b>bold</b> &lt;b&gt;");
    assert_eq!(last["message_id"], 5001, "the streamed message is edited");
    settle().await;
    assert_eq!(tg.sent_to(42).len(), 1, "one message, edited");
}

#[tokio::test]
async fn webhook_mode_registers_the_webhook_and_refuses_a_wrong_secret() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let mut config = tg.config();
    config["enable-webhook"] = json!(true);
    config["webhook_secret"] = json!("s3cret-token");
    let rig = PlatformRig::new(&app, "telegram", config).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let hooks = tg.calls.wait("setWebhook", 1).await;
    assert_eq!(
        hooks[0]["url"],
        format!("{}/bots/{}", app.settings().public_url(), rig.bot)
    );
    assert_eq!(hooks[0]["secret_token"], "s3cret-token");
    assert_eq!(tg.polls(), 0, "no polling in webhook mode");

    let path = format!("/bots/{}", rig.bot);
    let update = tg.update(private(1, 42, "via webhook"));
    let res = app
        .request(reqwest::Method::POST, &path)
        .header("x-telegram-bot-api-secret-token", "wrong")
        .json(&update)
        .send()
        .await;
    assert_eq!(res.status, 401);
    rig.wait_log(&app, &rig.bot, "wrong or missing secret token")
        .await;
    let res = app
        .request(reqwest::Method::POST, &path)
        .json(&update)
        .send()
        .await;
    assert_eq!(res.status, 401, "no secret at all");
    settle().await;
    assert!(tg.sent_to(42).is_empty());

    let res = app
        .request(reqwest::Method::POST, &path)
        .header("x-telegram-bot-api-secret-token", "s3cret-token")
        .json(&update)
        .send()
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        tg.wait_sent_to(42, 1).await[0]["text"],
        echo(1, "via webhook")
    );
    let again = app
        .request(reqwest::Method::POST, &path)
        .header("x-telegram-bot-api-secret-token", "s3cret-token")
        .json(&update)
        .send()
        .await;
    assert_eq!(again.status, 200);
    settle().await;
    assert_eq!(
        tg.sent_to(42).len(),
        1,
        "a redelivered update is answered once"
    );
}

#[tokio::test]
async fn a_dropped_connection_is_resumed_and_nothing_is_lost_or_answered_twice() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let rig = PlatformRig::new(&app, "telegram", tg.config()).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    tg.push(private(1, 42, "before"));
    tg.wait_sent_to(42, 1).await;
    tg.proxy.break_link();
    tg.push(private(2, 42, "during"));
    rig.wait_log(&app, &rig.bot, "getUpdates").await;
    tg.proxy.mend();
    let sent = tg.wait_sent_to(42, 2).await;
    assert_eq!(sent[1]["text"], echo(2, "during"));
    rig.wait_state(&app, &rig.bot, "running").await;
    tg.push(private(3, 42, "after"));
    let sent = tg.wait_sent_to(42, 3).await;
    assert_eq!(sent[2]["text"], echo(3, "after"));
    settle().await;
    assert_eq!(tg.sent_to(42).len(), 3);
}

#[tokio::test]
async fn a_wrong_token_shows_in_the_state_and_does_not_block_other_bots() {
    let app = app().await;
    let tg = FakeTelegram::start("123:good").await;
    let mut bad = tg.config();
    bad["token"] = json!("123:bad");
    let rig = PlatformRig::new(&app, "telegram", bad).await;
    let rt = rig.wait_state(&app, &rig.bot, "error").await;
    let error = rt["state"]["error"].as_str().unwrap();
    assert!(error.contains("getMe") && error.contains("401"), "{error}");
    assert!(!error.contains("123:bad"), "the token is not in the error");
    rig.wait_log(&app, &rig.bot, "Unauthorized").await;

    let good = rig.another_bot(&app, "telegram", tg.config()).await;
    rig.wait_state(&app, &good, "running").await;
    tg.push(private(1, 42, "hi"));
    assert_eq!(tg.wait_sent_to(42, 1).await[0]["text"], echo(1, "hi"));
    let retried = eventually("getMe retried with back-off", 10, || async {
        let rt = rig.runtime(&app).await;
        (rt["logs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["level"] == "error")
            .count()
            >= 2)
            .then_some(())
    });
    retried.await;
}
