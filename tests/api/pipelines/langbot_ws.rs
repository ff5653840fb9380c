//! LangBot's dashboard debug chat protocol: the socket
//! `/api/v1/pipelines/{pipeline_uuid}/ws/connect` and the `…/ws/messages|reset|connections|
//! broadcast` endpoints, driven with the frames LangBot 4.11.2's web UI sends.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use reqwest::Method;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::fixtures::Rig;
use crate::helpers::{spawn_app, spawn_app_with, TestApp};

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the socket as LangBot's UI does: `?session_type=…`, then an `authenticate` frame.
async fn open(app: &TestApp, pipeline: &str, session_type: &str, token: &str, ws: &str) -> Ws {
    let url = format!(
        "{}/api/v1/pipelines/{pipeline}/ws/connect?session_type={session_type}",
        app.address.replace("http://", "ws://"),
    );
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    let auth = json!({ "type": "authenticate", "token": token, "workspace_uuid": ws });
    send(&mut socket, auth).await;
    socket
}

/// Opens the socket and expects `connected`; answers the socket and its connection id.
async fn connect(app: &TestApp, pipeline: &str, session_type: &str, token: &str) -> (Ws, String) {
    let ws = app.workspace_of(token).await;
    let mut socket = open(app, pipeline, session_type, token, &ws).await;
    let connected = next_json(&mut socket).await;
    assert_eq!(connected["type"], "connected", "{connected}");
    assert_eq!(connected["pipeline_uuid"], pipeline);
    assert_eq!(connected["session_type"], session_type);
    assert!(connected["timestamp"]
        .as_str()
        .is_some_and(|t| !t.is_empty()));
    let id = connected["connection_id"].as_str().unwrap().to_string();
    (socket, id)
}

async fn send(socket: &mut Ws, frame: Value) {
    socket
        .send(Message::Text(frame.to_string().into()))
        .await
        .unwrap();
}

/// The message frame LangBot's UI sends for typed text.
fn message(text: &str, stream: bool) -> Value {
    json!({ "type": "message", "message": [{ "type": "Plain", "text": text }], "stream": stream })
}

async fn next_json(socket: &mut Ws) -> Value {
    loop {
        let frame = tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("a frame in time")
            .expect("an open socket")
            .expect("a valid frame");
        if let Message::Text(text) = frame {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

/// After an `error` frame, the server closes the socket.
async fn expect_closed(socket: &mut Ws) {
    loop {
        match tokio::time::timeout(Duration::from_secs(10), socket.next())
            .await
            .expect("the close in time")
        {
            None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return,
            Some(Ok(Message::Text(text))) => panic!("a frame after the error: {text}"),
            Some(Ok(_)) => {}
        }
    }
}

/// The `response` frames of one reply, up to the final one.
async fn reply_frames(socket: &mut Ws) -> Vec<Value> {
    let mut frames = Vec::new();
    loop {
        let frame = next_json(socket).await;
        assert_eq!(frame["type"], "response", "{frame}");
        let done = frame["data"]["is_final"] == true;
        frames.push(frame);
        if done {
            return frames;
        }
    }
}

fn ws_path(pipeline: &str, rest: &str) -> String {
    format!("/api/v1/pipelines/{pipeline}/ws/{rest}")
}

#[tokio::test]
async fn langbot_ui_chat_streams_replies_and_keeps_the_history() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (mut socket, connection) = connect(&app, &rig.pipeline, "person", &rig.owner).await;

    send(&mut socket, json!({ "type": "ping" })).await;
    assert_eq!(next_json(&mut socket).await["type"], "pong");

    // Streamed: the user's message, then one reply growing under one id.
    send(&mut socket, message("hello", true)).await;
    let user = next_json(&mut socket).await;
    assert_eq!(user["type"], "user_message");
    assert_eq!(user["session_type"], "person");
    assert_eq!(user["data"]["role"], "user");
    assert_eq!(user["data"]["content"], "hello");
    assert_eq!(user["data"]["connection_id"], connection.as_str());
    assert_eq!(user["data"]["is_final"], true);
    assert_eq!(user["data"]["message_chain"][0]["text"], "hello");
    let frames = reply_frames(&mut socket).await;
    assert!(frames.len() >= 2, "streamed in steps: {frames:?}");
    let id = &frames[0]["data"]["id"];
    assert_ne!(id, &user["data"]["id"]);
    for partial in &frames[..frames.len() - 1] {
        assert_eq!(&partial["data"]["id"], id);
        assert_eq!(partial["data"]["is_final"], false);
        assert_eq!(partial["session_type"], "person");
    }
    let last = frames.last().unwrap();
    assert_eq!(&last["data"]["id"], id);
    assert_eq!(last["data"]["role"], "assistant");
    assert_eq!(last["data"]["content"], "echo(1): hello");
    assert_eq!(last["data"]["message_chain"][0]["type"], "Plain");
    assert_eq!(last["data"]["message_chain"][0]["text"], "echo(1): hello");

    // Not streamed: one final response; the person chat keeps its conversation.
    send(&mut socket, message("again", false)).await;
    assert_eq!(next_json(&mut socket).await["type"], "user_message");
    let frames = reply_frames(&mut socket).await;
    assert_eq!(frames.len(), 1, "{frames:?}");
    assert_eq!(frames[0]["data"]["content"], "echo(2): again");

    let history = app
        .get_as(&rig.owner, &ws_path(&rig.pipeline, "messages/person"))
        .await;
    let messages = history.data()["messages"].as_array().unwrap().clone();
    let shown: Vec<(&str, &str, bool)> = messages
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap();
            (role, m["content"].as_str().unwrap(), m["is_final"] == true)
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("user", "hello", true),
            ("assistant", "echo(1): hello", true),
            ("user", "again", true),
            ("assistant", "echo(2): again", true),
        ]
    );
    assert_eq!(&messages[1]["id"], id);
    assert!(app
        .get_as(&rig.owner, &ws_path(&rig.pipeline, "messages/group"))
        .await
        .data()["messages"]
        .as_array()
        .unwrap()
        .is_empty());

    // Reset: the history is gone, and so is the model's memory of the chat.
    let reset = app
        .send_as(
            &rig.owner,
            Method::POST,
            &ws_path(&rig.pipeline, "reset/person"),
            &json!({}),
        )
        .await;
    assert_eq!(
        reset.data(),
        &json!({ "message": "Session reset successfully" })
    );
    let history = app
        .get_as(&rig.owner, &ws_path(&rig.pipeline, "messages/person"))
        .await;
    assert_eq!(history.data(), &json!({ "messages": [] }));
    send(&mut socket, message("fresh", false)).await;
    let user = next_json(&mut socket).await;
    assert_eq!(user["data"]["id"], 1, "numbering starts again");
    let frames = reply_frames(&mut socket).await;
    assert_eq!(frames[0]["data"]["content"], "echo(1): fresh");

    send(&mut socket, json!({ "type": "disconnect" })).await;
    expect_closed(&mut socket).await;
}

#[tokio::test]
async fn langbot_ui_chat_refuses_bad_credentials_session_types_and_pipelines() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let ws = app.workspace_of(&rig.owner).await;

    let mut socket = open(&app, &rig.pipeline, "person", "lbs_bogus", &ws).await;
    let frame = next_json(&mut socket).await;
    assert_eq!(frame, json!({ "type": "error", "message": "Unauthorized" }));
    expect_closed(&mut socket).await;

    // A viewer lacks runtime.operate.
    let viewer = app
        .add_member(&rig.owner, &ws, "viewer@example.com", "viewer")
        .await;
    let mut socket = open(&app, &rig.pipeline, "person", &viewer.token, &ws).await;
    assert_eq!(next_json(&mut socket).await["message"], "Unauthorized");
    expect_closed(&mut socket).await;

    let mut socket = open(&app, &rig.pipeline, "channel", &rig.owner, &ws).await;
    let frame = next_json(&mut socket).await;
    assert_eq!(
        frame,
        json!({ "type": "error", "message": "session_type must be person or group" })
    );
    expect_closed(&mut socket).await;

    let missing = uuid::Uuid::new_v4().to_string();
    let mut socket = open(&app, &missing, "person", &rig.owner, &ws).await;
    let frame = next_json(&mut socket).await;
    assert_eq!(
        frame,
        json!({ "type": "error", "message": "Pipeline not found" })
    );
    expect_closed(&mut socket).await;

    // The HTTP side: a bad session type is a 400, a missing pipeline a 404.
    app.get_as(&rig.owner, &ws_path(&rig.pipeline, "messages/channel"))
        .await
        .expect_field_error(400, "invalid_request", "session_type", "bad session type");
    app.send_as(
        &rig.owner,
        Method::POST,
        &ws_path(&rig.pipeline, "reset/channel"),
        &json!({}),
    )
    .await
    .assert_error(400, "invalid_request");
    for (method, rest, body) in [
        (Method::GET, "messages/person", None),
        (Method::POST, "reset/group", Some(json!({}))),
        (Method::GET, "connections", None),
        (Method::POST, "broadcast", Some(json!({ "message": "hi" }))),
    ] {
        let path = ws_path(&missing, rest);
        app.call(
            &crate::helpers::Cred::bearer(&rig.owner),
            None,
            method,
            &path,
            body.as_ref(),
        )
        .await
        .assert_error(404, "resource_not_found");
    }
    app.send_as(
        &rig.owner,
        Method::POST,
        &ws_path(&rig.pipeline, "broadcast"),
        &json!({ "message": "" }),
    )
    .await
    .assert_error(400, "invalid_request");
}

#[tokio::test]
async fn langbot_ui_chat_checks_authorization_again_for_each_message() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let ws = app.workspace_of(&rig.owner).await;
    let operator = app
        .add_member(&rig.owner, &ws, "operator@example.com", "operator")
        .await;
    let (mut socket, _) = connect(&app, &rig.pipeline, "person", &operator.token).await;
    app.send_as(
        &operator.token,
        Method::POST,
        "/api/v1/user/logout",
        &json!({}),
    )
    .await
    .data();
    // Revocation reaches every replica's caches within a second.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    send(&mut socket, message("still there?", true)).await;
    let frame = next_json(&mut socket).await;
    assert_eq!(frame, json!({ "type": "error", "message": "Unauthorized" }));
    expect_closed(&mut socket).await;
    let history = app
        .get_as(&rig.owner, &ws_path(&rig.pipeline, "messages/person"))
        .await;
    assert_eq!(history.data(), &json!({ "messages": [] }));
}

#[tokio::test]
async fn langbot_ui_group_chat_is_shared_and_connections_are_listed_and_reached() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let (mut first, first_id) = connect(&app, &rig.pipeline, "group", &rig.owner).await;
    let (mut second, second_id) = connect(&app, &rig.pipeline, "group", &rig.owner).await;
    let (mut person, person_id) = connect(&app, &rig.pipeline, "person", &rig.owner).await;

    let listed = app
        .get_as(&rig.owner, &ws_path(&rig.pipeline, "connections"))
        .await;
    let data = listed.data();
    let mut ids: Vec<(&str, &str)> = data["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert_eq!(c["is_active"], true);
            assert!(c["created_at"].as_str().is_some() && c["last_active"].as_str().is_some());
            (
                c["connection_id"].as_str().unwrap(),
                c["session_type"].as_str().unwrap(),
            )
        })
        .collect();
    ids.sort();
    let mut expected = vec![
        (first_id.as_str(), "group"),
        (second_id.as_str(), "group"),
        (person_id.as_str(), "person"),
    ];
    expected.sort();
    assert_eq!(ids, expected);
    assert_eq!(data["stats"]["total_connections"], 3);
    assert_eq!(data["stats"]["connections_by_pipeline"][&rig.pipeline], 3);
    assert_eq!(data["stats"]["connections_by_session_type"]["group"], 2);

    // The group chat (with the bot mentioned, as its respond rules want) reaches both group
    // connections, and is one conversation; the person connection sees none of it.
    let mention = |text: &str| {
        json!({ "type": "message", "stream": false, "message": [
            { "type": "At", "target": "websocketbot", "display": "websocketbot" },
            { "type": "Plain", "text": text },
        ] })
    };
    send(&mut first, mention(" hi")).await;
    for socket in [&mut first, &mut second] {
        let user = next_json(socket).await;
        assert_eq!(user["type"], "user_message");
        assert_eq!(user["session_type"], "group");
        assert_eq!(user["data"]["connection_id"], first_id.as_str());
        assert_eq!(user["data"]["content"], "@websocketbot hi");
        let reply = reply_frames(socket).await;
        assert_eq!(reply.last().unwrap()["data"]["content"], "echo(1): hi");
    }
    send(&mut second, mention(" there")).await;
    for socket in [&mut first, &mut second] {
        assert_eq!(next_json(socket).await["type"], "user_message");
        let reply = reply_frames(socket).await;
        assert_eq!(reply.last().unwrap()["data"]["content"], "echo(2): there");
    }
    let history = app
        .get_as(&rig.owner, &ws_path(&rig.pipeline, "messages/group"))
        .await;
    assert_eq!(history.data()["messages"].as_array().unwrap().len(), 4);

    let sent = app
        .send_as(
            &rig.owner,
            Method::POST,
            &ws_path(&rig.pipeline, "broadcast"),
            &json!({ "message": "maintenance soon" }),
        )
        .await;
    assert_eq!(
        sent.data(),
        &json!({ "message": "Broadcast sent successfully" })
    );
    for socket in [&mut first, &mut second, &mut person] {
        let frame = next_json(socket).await;
        assert_eq!(frame["type"], "broadcast", "{frame}");
        assert_eq!(frame["message"], "maintenance soon");
        assert!(frame["timestamp"].as_str().is_some());
    }

    // A closed connection leaves the list.
    send(&mut second, json!({ "type": "disconnect" })).await;
    expect_closed(&mut second).await;
    crate::helpers::eventually(
        "the closed connection is unlisted",
        Duration::from_secs(5),
        || async {
            let listed = app
                .get_as(&rig.owner, &ws_path(&rig.pipeline, "connections"))
                .await;
            let total = listed.data()["stats"]["total_connections"].clone();
            (total == 2)
                .then_some(())
                .ok_or(format!("{total} connections"))
        },
    )
    .await;
}

#[tokio::test]
async fn langbot_ui_chat_of_another_workspace_is_unreachable() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let rig = Rig::new(&app, json!({})).await;
    let ws_a = app.workspace_of(&rig.owner).await;
    let ws_b = app.create_workspace(&rig.owner, "B").await;
    let outsider = app
        .add_member(&rig.owner, &ws_b, "outsider@example.com", "admin")
        .await;

    // B's admin, in B: A's pipeline does not exist there; in A: not a member.
    let mut socket = open(&app, &rig.pipeline, "person", &outsider.token, &ws_b).await;
    assert_eq!(
        next_json(&mut socket).await["message"],
        "Pipeline not found"
    );
    let mut socket = open(&app, &rig.pipeline, "person", &outsider.token, &ws_a).await;
    assert_eq!(next_json(&mut socket).await["message"], "Unauthorized");
    // A's owner acting in B cannot reach A's pipeline either.
    let mut socket = open(&app, &rig.pipeline, "group", &rig.owner, &ws_b).await;
    assert_eq!(
        next_json(&mut socket).await["message"],
        "Pipeline not found"
    );

    let (_, key_b) = app.create_key(&outsider.token, None).await;
    for cred in [
        crate::helpers::Cred::bearer(&outsider.token),
        crate::helpers::Cred::api_key(&key_b),
    ] {
        for (method, rest, body) in [
            (Method::GET, "messages/person", None),
            (Method::POST, "reset/group", Some(json!({}))),
            (Method::GET, "connections", None),
            (Method::POST, "broadcast", Some(json!({ "message": "hi" }))),
        ] {
            app.call(
                &cred,
                None,
                method,
                &ws_path(&rig.pipeline, rest),
                body.as_ref(),
            )
            .await
            .assert_error(404, "resource_not_found");
        }
    }
}
