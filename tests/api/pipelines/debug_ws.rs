//! The pipeline debug chat over WebSocket: `/api/v1/pipelines/{pipeline_uuid}/ws`.

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::fixtures::Rig;
use crate::helpers::spawn_app;

async fn next_json(
    ws: &mut (impl StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin),
) -> Value {
    loop {
        let frame = tokio::time::timeout(std::time::Duration::from_secs(10), ws.next())
            .await
            .expect("a frame in time")
            .expect("an open socket")
            .expect("a valid frame");
        if let Message::Text(text) = frame {
            return serde_json::from_str(&text).unwrap();
        }
    }
}

#[tokio::test]
async fn debug_chat_streams_the_reply_then_the_final_message() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let url = format!(
        "{}/api/v1/pipelines/{}/ws",
        app.address.replace("http://", "ws://"),
        rig.pipeline
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    ws.send(Message::Text(
        json!({ "type": "authenticate", "token": rig.owner })
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    let connected = next_json(&mut ws).await;
    assert_eq!(connected["type"], "connected");
    ws.send(Message::Text(
        json!({ "type": "message", "message": "hello" })
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    let mut streamed = String::new();
    let final_frame = loop {
        let frame = next_json(&mut ws).await;
        match frame["type"].as_str() {
            Some("chunk") => streamed.push_str(frame["content"].as_str().unwrap()),
            Some("response") => break frame,
            other => panic!("unexpected frame {other:?}: {frame}"),
        }
    };
    assert_eq!(streamed, "echo(1): hello");
    assert_eq!(final_frame["data"]["content"], "echo(1): hello");
    assert_eq!(final_frame["data"]["is_final"], true);
    // The connection keeps its conversation.
    ws.send(Message::Text(
        json!({ "type": "message", "message": "again" })
            .to_string()
            .into(),
    ))
    .await
    .unwrap();
    let second = loop {
        let frame = next_json(&mut ws).await;
        if frame["type"] == "response" {
            break frame;
        }
    };
    assert_eq!(second["data"]["content"], "echo(2): again");
}

#[tokio::test]
async fn debug_chat_needs_a_valid_token_with_runtime_operate() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let base = format!(
        "{}/api/v1/pipelines/{}/ws",
        app.address.replace("http://", "ws://"),
        rig.pipeline
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{base}?token=lbs_bogus"))
        .await
        .unwrap();
    let frame = next_json(&mut ws).await;
    assert_eq!(frame, json!({ "type": "error", "message": "Unauthorized" }));
    let ws_uuid = app.workspace_of(&rig.owner).await;
    let viewer = app
        .add_member(&rig.owner, &ws_uuid, "viewer@example.com", "viewer")
        .await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("{base}?token={}", viewer.token))
        .await
        .unwrap();
    assert_eq!(next_json(&mut ws).await["message"], "Unauthorized");
    let missing = format!(
        "{}/api/v1/pipelines/{}/ws?token={}",
        app.address.replace("http://", "ws://"),
        uuid::Uuid::new_v4(),
        rig.owner
    );
    let (mut ws, _) = tokio_tungstenite::connect_async(missing).await.unwrap();
    assert_eq!(next_json(&mut ws).await["message"], "Pipeline not found");
}
