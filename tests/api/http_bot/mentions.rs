//! Mentions of an http_bot: an `At` targeting `http_bot` (LangBot's account id for it), the
//! bot's uuid, or the `bot_account_id` that `get_bot` reports is `is_at_bot`, so the default
//! group route (which needs a mention) fires; any other target is not a mention.

use serde_json::{json, Value};

use crate::helpers::fixtures::Rig;
use crate::helpers::spawn_app;

fn group(target: &Value) -> Value {
    json!({ "session_id": "g1", "session_type": "group", "sender": { "id": "u1", "name": "Ann" },
            "message": [{ "type": "At", "target": target }, { "type": "Plain", "text": "hi" }] })
}

#[tokio::test]
async fn an_at_http_bot_its_uuid_or_its_account_id_mentions_the_bot() {
    let app = spawn_app().await;
    let rig = Rig::new(&app, json!({})).await;
    let path = format!("/api/v1/platform/bots/{}", rig.bot);
    let bot = app.get_as(&rig.owner, &path).await.data()["bot"].clone();
    let values = &bot["adapter_runtime_values"];
    assert_eq!(values["bot_account_id"], "http_bot", "{bot}");
    assert_eq!(values["webhook_url"], format!("/bots/{}", rig.bot), "{bot}");
    assert!(
        values["webhook_full_url"]
            .as_str()
            .is_some_and(|u| u.ends_with(&format!("/bots/{}", rig.bot))),
        "{bot}"
    );
    let mut turns = 0;
    for target in [
        json!("http_bot"),
        json!(rig.bot),
        values["bot_account_id"].clone(),
    ] {
        turns += 1;
        let res = rig.sync(&app, group(&target)).await;
        assert_eq!(res.status, 200, "{target}: {}", res.text);
        assert_eq!(
            res.body["data"]["text"],
            format!("echo({turns}): hi"),
            "At {target} mentions the bot: {}",
            res.text
        );
    }
    for target in [json!("someone-else"), json!("HTTP_BOT"), json!("u1")] {
        let res = rig.sync(&app, group(&target)).await;
        assert_eq!(res.status, 200, "{target}: {}", res.text);
        assert_eq!(
            res.body["data"]["message"],
            json!([]),
            "At {target} is no mention: {}",
            res.text
        );
    }
    // The misses are recorded as such; the hits were delivered by the group route.
    let status = app
        .get_as(&rig.owner, &format!("{path}/event-routes/status"))
        .await;
    let data = status.data();
    assert_eq!(
        data["unmatched_events"][0]["failure_code"], "route_not_found",
        "{data}"
    );
    assert_eq!(data["routes"][1]["last_status"], "delivered", "{data}");
}
