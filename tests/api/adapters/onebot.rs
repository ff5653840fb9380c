//! `onebot-v11` (reverse and forward WebSocket) and `aiocqhttp` against a fake OneBot v11
//! implementation.

use reqwest::Method;
use serde_json::json;

use super::{app, settle};
use crate::helpers::fakes::onebot::{at, group, private, text, FakeOneBot, SELF_ID};
use crate::helpers::fixtures::{
    an_image_was_received, bot_path, echo, eventually, PlatformRig, PNG,
};
use crate::helpers::TestApp;

fn reverse_url(app: &TestApp, bot: &str) -> String {
    format!("{}/bots/{bot}", app.address.replacen("http://", "ws://", 1))
}

fn reverse_config(token: &str) -> serde_json::Value {
    json!({ "connection_mode": "reverse_ws", "access-token": token })
}

pub(super) fn said(action: &serde_json::Value) -> String {
    action["message"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["type"] == "text")
        .map(|s| s["data"]["text"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn reverse_websocket_checks_the_token_and_answers_private_and_mentioned_group_messages() {
    let app = app().await;
    let rig = PlatformRig::new(&app, "onebot-v11", reverse_config("tok")).await;
    let ob = FakeOneBot::new();
    let url = reverse_url(&app, &rig.bot);
    assert_eq!(ob.connect(&url, Some("wrong")).await, Err(401));
    assert_eq!(ob.connect(&url, None).await, Err(401), "no token");
    rig.wait_log(&app, &rig.bot, "wrong or missing access token")
        .await;
    assert_eq!(
        ob.connect(&format!("{url}?access_token=tok"), None).await,
        Ok(()),
        "the token as a query parameter"
    );
    ob.disconnect();
    rig.wait_state(&app, &rig.bot, "connecting").await;

    ob.connect(&url, Some("tok")).await.unwrap();
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    assert_eq!(rt["bot_account_id"], SELF_ID.to_string());

    ob.push(private(1, 42, json!([text("hello")])));
    let sent = ob.wait_sent_to("user_id", 42, 1).await;
    assert_eq!(sent[0]["message_type"], "private");
    assert_eq!(said(&sent[0]), echo(1, "hello"));

    ob.push(group(2, 900, 43, json!([text("just chatting")])));
    ob.push(group(3, 900, 43, json!([at(12345), text("not you")])));
    settle().await;
    assert!(
        ob.sent_to("group_id", 900).is_empty(),
        "an unmentioned group message was answered"
    );

    ob.push(group(
        4,
        900,
        43,
        json!([at(SELF_ID), text(" what time is it")]),
    ));
    let sent = ob.wait_sent_to("group_id", 900, 1).await;
    let segments = sent[0]["message"].as_array().unwrap();
    assert_eq!(
        segments[0],
        json!({ "type": "reply", "data": { "id": "4" } }),
        "quotes: {segments:?}"
    );
    assert_eq!(
        segments[1],
        json!({ "type": "at", "data": { "qq": "43" } }),
        "ats the sender"
    );
    assert_eq!(said(&sent[0]), echo(1, "what time is it"));

    let cq = format!("[CQ:at,qq={SELF_ID}] and tomorrow&#44; too?");
    ob.push(group(5, 900, 43, json!(cq)));
    let sent = ob.wait_sent_to("group_id", 900, 2).await;
    assert_eq!(
        said(&sent[1]),
        echo(2, "and tomorrow, too?"),
        "CQ-code strings are read"
    );
    settle().await;
    assert_eq!(ob.calls.of("send_msg").len(), 3);
}

#[tokio::test]
async fn images_are_received_and_sent_and_long_replies_split() {
    let app = app().await;
    let rig = PlatformRig::new(&app, "onebot-v11", reverse_config("tok")).await;
    let ob = FakeOneBot::new();
    ob.connect(&reverse_url(&app, &rig.bot), Some("tok"))
        .await
        .unwrap();
    rig.wait_state(&app, &rig.bot, "running").await;
    let image = json!({ "type": "image", "data": { "file": "abc.image", "url": "https://multimedia.nt.qq.com.cn/x.png" } });
    ob.push(private(1, 42, json!([text("look"), image])));
    let sent = ob.wait_sent_to("user_id", 42, 1).await;
    assert_eq!(said(&sent[0]), echo(1, "look"));
    assert!(an_image_was_received(&app).await);

    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(PNG);
    let res = rig
        .send_message(
            &app,
            json!({ "target_type": "group", "target_id": "901", "message_chain": [
            { "type": "Plain", "text": "here:" },
            { "type": "Image", "url": "https://example.com/cat.png" },
            { "type": "Image", "base64": b64 },
        ] }),
        )
        .await;
    assert_eq!(res.data()["sent"], true, "{}", res.text);
    let sent = ob.sent_to("group_id", 901);
    assert_eq!(said(&sent[0]), "here:");
    assert_eq!(
        sent[1]["message"][0]["data"]["file"],
        "https://example.com/cat.png"
    );
    assert_eq!(
        sent[2]["message"][0]["data"]["file"],
        format!("base64://{b64}")
    );

    let long = "word ".repeat(800).trim().to_string();
    ob.push(private(2, 42, json!([text(&long)])));
    ob.wait_sent_to("user_id", 42, 3).await;
    settle().await;
    let sent = ob.sent_to("user_id", 42);
    assert_eq!(sent.len(), 3);
    let parts: Vec<String> = sent[1..].iter().map(said).collect();
    assert!(parts.iter().all(|p| p.chars().count() <= 3000));
    assert_eq!(parts.concat(), echo(2, &long));
}

#[tokio::test]
async fn a_reply_segment_is_read_as_a_quote_and_addresses_nobody_by_itself() {
    let app = app().await;
    let rig = PlatformRig::new(&app, "onebot-v11", reverse_config("tok")).await;
    let ob = FakeOneBot::new();
    ob.connect(&reverse_url(&app, &rig.bot), Some("tok"))
        .await
        .unwrap();
    rig.wait_state(&app, &rig.bot, "running").await;
    let reply = |id: &str| json!({ "type": "reply", "data": { "id": id } });
    ob.push(group(
        7,
        900,
        43,
        json!([reply("6"), text("a reply to someone")]),
    ));
    ob.push(group(
        8,
        900,
        43,
        json!([reply("5"), at(SELF_ID), text(" and you?")]),
    ));
    let sent = ob.wait_sent_to("group_id", 900, 1).await;
    assert_eq!(said(&sent[0]), echo(1, "and you?"));
    assert_eq!(
        sent[0]["message"][0]["data"]["id"], "8",
        "quotes the message"
    );
    settle().await;
    assert_eq!(
        ob.sent_to("group_id", 900).len(),
        1,
        "a reply without a mention was not answered"
    );
    use langbot::entities::monitoring_message;
    use sea_orm::EntityTrait;
    let stored = monitoring_message::Entity::find()
        .all(app.db())
        .await
        .unwrap();
    fn has_quote_of(v: &serde_json::Value, id: &str) -> bool {
        match v {
            serde_json::Value::Object(o) => {
                (o.get("type") == Some(&json!("Quote")) && o.get("target") == Some(&json!(id)))
                    || o.values().any(|v| has_quote_of(v, id))
            }
            serde_json::Value::Array(a) => a.iter().any(|v| has_quote_of(v, id)),
            _ => false,
        }
    }
    assert!(
        stored
            .iter()
            .any(|m| serde_json::from_str(&m.message_content)
                .is_ok_and(|v: serde_json::Value| has_quote_of(&v, "5"))),
        "the reply segment is in the chain: {:?}",
        stored
            .iter()
            .map(|m| &m.message_content)
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_reverse_connection_closes_when_the_bot_is_disabled_and_is_taken_again_after() {
    let app = app().await;
    let rig = PlatformRig::new(&app, "onebot-v11", reverse_config("tok")).await;
    let ob = FakeOneBot::new();
    let url = reverse_url(&app, &rig.bot);
    ob.connect(&url, Some("tok")).await.unwrap();
    rig.wait_state(&app, &rig.bot, "running").await;
    ob.push(private(1, 42, json!([text("one")])));
    ob.wait_sent_to("user_id", 42, 1).await;

    ob.disconnect();
    rig.wait_log(&app, &rig.bot, "disconnected").await;
    ob.connect(&url, Some("tok")).await.unwrap();
    rig.wait_state(&app, &rig.bot, "running").await;
    ob.push(private(2, 42, json!([text("two")])));
    assert_eq!(
        said(&ob.wait_sent_to("user_id", 42, 2).await[1]),
        echo(2, "two"),
        "resumed after the implementation reconnected"
    );

    app.send_as(
        &rig.owner,
        Method::PUT,
        &bot_path(&rig.bot),
        &json!({ "enable": false }),
    )
    .await
    .data();
    eventually("the connection closed", 10, || async {
        (!ob.connected()).then_some(())
    })
    .await;
    rig.wait_state(&app, &rig.bot, "stopped").await;
    assert_ne!(
        ob.connect(&url, Some("tok")).await,
        Ok(()),
        "a disabled bot takes no connection"
    );
}

#[tokio::test]
async fn forward_websocket_connects_with_the_token_and_reconnects_after_a_drop() {
    let app = app().await;
    let ob = FakeOneBot::serving("tok").await;
    let config =
        json!({ "connection_mode": "forward_ws", "ws_url": ob.ws_url(), "access-token": "tok" });
    let rig = PlatformRig::new(&app, "onebot-v11", config).await;
    let rt = rig.wait_state(&app, &rig.bot, "running").await;
    eventually("the lifecycle event read", 10, || async {
        let rt = rig.runtime(&app).await;
        (rt["bot_account_id"].as_str() == Some(SELF_ID.to_string().as_str())).then_some(())
    })
    .await;
    assert_eq!(rt["state"]["state"], "running");
    eventually("connected", 10, || async { ob.connected().then_some(()) }).await;
    ob.push(private(1, 42, json!([text("hello")])));
    assert_eq!(
        said(&ob.wait_sent_to("user_id", 42, 1).await[0]),
        echo(1, "hello")
    );

    ob.disconnect();
    eventually("reconnected", 10, || async {
        (ob.calls.of("connected").len() >= 2 && ob.connected()).then_some(())
    })
    .await;
    rig.wait_log(&app, &rig.bot, "reconnecting").await;
    ob.push(private(2, 42, json!([text("after")])));
    assert_eq!(
        said(&ob.wait_sent_to("user_id", 42, 2).await[1]),
        echo(2, "after")
    );

    let wrong =
        json!({ "connection_mode": "forward_ws", "ws_url": ob.ws_url(), "access-token": "nope" });
    let other = rig.another_bot(&app, "onebot-v11", wrong).await;
    let rt = rig.wait_state(&app, &other, "error").await;
    assert!(
        rt["state"]["error"].as_str().unwrap().contains("401"),
        "{rt}"
    );
    assert!(!ob.calls.of("refused").is_empty());
}

#[tokio::test]
async fn aiocqhttp_listens_on_its_own_port_and_refuses_a_wrong_token() {
    let app = app().await;
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = json!({ "host": "127.0.0.1", "port": port, "access-token": "tok" });
    let rig = PlatformRig::new(&app, "aiocqhttp", config).await;
    rig.wait_state(&app, &rig.bot, "running").await;
    let ob = FakeOneBot::new();
    let url = format!("ws://127.0.0.1:{port}/ws");
    assert_eq!(ob.connect(&url, Some("wrong")).await, Err(401));
    rig.wait_log(&app, &rig.bot, "wrong or missing access token")
        .await;
    ob.connect(&url, Some("tok")).await.unwrap();
    ob.push(group(1, 900, 43, json!([at(SELF_ID), text("hi")])));
    let sent = ob.wait_sent_to("group_id", 900, 1).await;
    assert_eq!(said(&sent[0]), echo(1, "hi"));
    let rt = rig.runtime(&app).await;
    assert_eq!(rt["bot_account_id"], SELF_ID.to_string());
    ob.push(group(2, 900, 43, json!([text("not for the bot")])));

    // The same protocol as onebot-v11's reverse WebSocket, on its own listener: a private
    // message with an image, a reply split at the limit, a dropped connection taken again.
    let image = json!({ "type": "image", "data": { "file": "abc.image", "url": "https://multimedia.nt.qq.com.cn/x.png" } });
    ob.push(private(3, 42, json!([text("look"), image])));
    let sent = ob.wait_sent_to("user_id", 42, 1).await;
    assert_eq!(said(&sent[0]), echo(1, "look"));
    assert!(an_image_was_received(&app).await);
    let long = "word ".repeat(800).trim().to_string();
    ob.push(private(4, 42, json!([text(&long)])));
    let sent = ob.wait_sent_to("user_id", 42, 3).await;
    let parts: Vec<String> = sent[1..].iter().map(said).collect();
    assert!(parts.iter().all(|p| p.chars().count() <= 3000));
    assert_eq!(parts.concat(), echo(2, &long));

    ob.disconnect();
    rig.wait_log(&app, &rig.bot, "disconnected").await;
    ob.connect(&url, Some("tok")).await.unwrap();
    ob.push(private(5, 42, json!([text("again")])));
    let sent = ob.wait_sent_to("user_id", 42, 4).await;
    assert_eq!(said(&sent[3]), echo(3, "again"));
    settle().await;
    assert_eq!(
        ob.sent_to("group_id", 900).len(),
        1,
        "the unmentioned group message was not answered"
    );
    assert_eq!(ob.sent_to("user_id", 42).len(), 4, "nothing answered twice");

    app.request(Method::DELETE, &bot_path(&rig.bot))
        .bearer(&rig.owner)
        .send()
        .await
        .data();
    eventually("the listener closed", 10, || async {
        tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
            .then_some(())
    })
    .await;
}
