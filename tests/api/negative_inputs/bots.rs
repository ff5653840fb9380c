//! Bad input on `/api/v1/platform/bots`: create, update and dry-run bodies with wrong types,
//! over-long strings (names 255, the callback URL 512), values the adapter's schema refuses,
//! malformed routes and unknown fields are 400 `invalid_request` naming the field, and change
//! nothing.

use reqwest::Method;
use serde_json::{json, Value};

use super::{assert_no_failures, run_cases, Case, BAD};
use crate::helpers::fixtures::{bot_path, BOTS};
use crate::helpers::spawn_app;

fn config() -> Value {
    json!({ "inbound_secret": "s3cret-inbound", "callback_url": "http://127.0.0.1:9/cb" })
}

/// A valid create body with `patch` merged in (a `null` removes the key).
fn create_with(patch: Value) -> Value {
    let mut body = json!({ "name": "b", "adapter": "http_bot", "adapter_config": config() });
    for (k, v) in patch.as_object().cloned().unwrap_or_default() {
        if v.is_null() {
            body.as_object_mut().map(|o| o.remove(&k));
        } else {
            body[k] = v;
        }
    }
    body
}

/// A valid create body whose `adapter_config` gets `patch` merged in.
fn config_with(patch: Value) -> Value {
    let mut cfg = config();
    for (k, v) in patch.as_object().cloned().unwrap_or_default() {
        cfg[k] = v;
    }
    create_with(json!({ "adapter_config": cfg }))
}

fn route(patch: Value) -> Value {
    let mut r = json!({ "event_pattern": "*", "target_type": "discard" });
    for (k, v) in patch.as_object().cloned().unwrap_or_default() {
        r[k] = v;
    }
    r
}

#[tokio::test]
async fn bad_bot_creates_are_400_naming_the_field_and_create_nothing() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let routes = |n: usize| json!((0..n).map(|_| route(json!({}))).collect::<Vec<_>>());
    let filters = |n: usize| {
        json!((0..n)
            .map(|_| json!({ "field": "chat_type", "value": "person" }))
            .collect::<Vec<_>>())
    };
    let table: Vec<(Value, &str)> = vec![
        (create_with(json!({ "name": null })), "name"),
        (create_with(json!({ "name": 5 })), "name"),
        (create_with(json!({ "name": "" })), "name"),
        (create_with(json!({ "name": "n".repeat(256) })), "name"),
        (
            create_with(json!({ "description": "d".repeat(256) })),
            "description",
        ),
        (create_with(json!({ "description": false })), "description"),
        (create_with(json!({ "adapter": null })), "adapter"),
        (create_with(json!({ "adapter": 5 })), "adapter"),
        (
            create_with(json!({ "adapter": "a".repeat(256) })),
            "adapter",
        ),
        (create_with(json!({ "adapter": "HTTP_BOT" })), "adapter"),
        (
            create_with(json!({ "adapter_config": null })),
            "adapter_config",
        ),
        (
            create_with(json!({ "adapter_config": ["s", "http://h/cb"] })),
            "adapter_config",
        ),
        (create_with(json!({ "enable": "yes" })), "enable"),
        (create_with(json!({ "enable": 1 })), "enable"),
        (create_with(json!({ "bogus": 1 })), "bogus"),
        // The adapter's schema.
        (
            config_with(
                json!({ "callback_url": format!("https://example.com/{}", "a".repeat(500)) }),
            ),
            "adapter_config.callback_url",
        ),
        (
            config_with(json!({ "callback_url": "/cb" })),
            "adapter_config.callback_url",
        ),
        (
            config_with(json!({ "callback_url": 5 })),
            "adapter_config.callback_url",
        ),
        (
            config_with(json!({ "inbound_secret": 5 })),
            "adapter_config.inbound_secret",
        ),
        // Empty is unset: refused once the bot is to run (a disabled bot may be saved
        // unfinished, as LangBot's bot form does).
        (
            create_with(json!({ "enable": true, "adapter_config": {
                "inbound_secret": "", "callback_url": "http://127.0.0.1:9/cb" } })),
            "adapter_config.inbound_secret",
        ),
        (
            config_with(json!({ "inbound_secret": "s".repeat(4097) })),
            "adapter_config.inbound_secret",
        ),
        (
            config_with(json!({ "outbound_secret": [] })),
            "adapter_config.outbound_secret",
        ),
        (
            config_with(json!({ "callback_timeout": "15" })),
            "adapter_config.callback_timeout",
        ),
        (
            config_with(json!({ "callback_timeout": 121 })),
            "adapter_config.callback_timeout",
        ),
        (
            config_with(json!({ "callback_timeout": 1.5 })),
            "adapter_config.callback_timeout",
        ),
        (
            config_with(json!({ "callback_max_retries": 11 })),
            "adapter_config.callback_max_retries",
        ),
        (
            config_with(json!({ "callback_max_retries": -1 })),
            "adapter_config.callback_max_retries",
        ),
        (
            config_with(json!({ "signature_required": "no" })),
            "adapter_config.signature_required",
        ),
        (
            config_with(json!({ "default_session_type": 5 })),
            "adapter_config.default_session_type",
        ),
        // Routes.
        (
            create_with(json!({ "event_bindings": "all" })),
            "event_bindings",
        ),
        (
            create_with(json!({ "event_bindings": [5] })),
            "event_bindings[0]",
        ),
        (
            create_with(json!({ "event_bindings": routes(51) })),
            "event_bindings",
        ),
        (
            create_with(json!({ "event_bindings": [route(json!({ "filters": filters(21) }))] })),
            "event_bindings[0].filters",
        ),
        (
            create_with(json!({ "event_bindings": [route(json!({ "id": "i".repeat(65) }))] })),
            "event_bindings[0].id",
        ),
        (
            create_with(
                json!({ "event_bindings": [route(json!({ "description": "d".repeat(256) }))] }),
            ),
            "event_bindings[0].description",
        ),
        (
            create_with(
                json!({ "event_bindings": [route(json!({ "event_pattern": "m".repeat(300) }))] }),
            ),
            "event_bindings[0].event_pattern",
        ),
        (
            create_with(json!({ "event_bindings": [route(json!({ "enabled": "yes" }))] })),
            "event_bindings[0].enabled",
        ),
        (
            create_with(json!({ "event_bindings": [{ "event_pattern": "*" }] })),
            "event_bindings[0].target_type",
        ),
    ];
    let cases: Vec<Case> = table
        .into_iter()
        .map(|(body, field)| Case::new(Method::POST, BOTS, BAD).json(body).naming(field))
        .collect();
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
    let list = app.get_as(&owner, BOTS).await;
    assert_eq!(list.data()["total"], 0, "a refused create left a bot");
    // The limits themselves are accepted.
    let at_limits = create_with(json!({
        "name": "n".repeat(255),
        "description": "d".repeat(255),
        "adapter_config": {
            "inbound_secret": "s".repeat(4096),
            "callback_url": format!("https://example.com/{}", "a".repeat(512 - 20)),
            "callback_timeout": 120,
            "callback_max_retries": 10,
        },
        "event_bindings": routes(50),
    }));
    let uuid = app.create_bot(&owner, None, &at_limits).await;
    let bot = app.bot(&owner, &uuid).await;
    assert_eq!(bot["event_bindings"].as_array().map(Vec::len), Some(50));
}

#[tokio::test]
async fn bad_bot_updates_and_dry_runs_are_400_naming_the_field_and_change_nothing() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let uuid = app.create_bot(&owner, None, &create_with(json!({}))).await;
    let before = app.bot(&owner, &uuid).await;
    let path = bot_path(&uuid);
    let dry_run = format!("{path}/event-routes/dry-run");
    let mut cases: Vec<Case> = [
        (json!({ "name": "" }), "name"),
        (json!({ "name": "n".repeat(256) }), "name"),
        (json!({ "description": "d".repeat(256) }), "description"),
        (json!({ "enable": "yes" }), "enable"),
        (json!({ "adapter": "kook" }), "adapter"),
        (json!({ "adapter_config": "text" }), "adapter_config"),
        (
            json!({ "adapter_config": { "callback_url": "ftp://x" } }),
            "adapter_config.callback_url",
        ),
        (json!({ "event_bindings": {} }), "event_bindings"),
        (
            json!({ "event_bindings": [route(json!({ "target_type": "agent" }))] }),
            "event_bindings[0].target_type",
        ),
        (json!({ "bogus": 1 }), "bogus"),
    ]
    .into_iter()
    .map(|(body, field)| {
        Case::new(Method::PUT, path.clone(), BAD)
            .json(body)
            .naming(field)
    })
    .collect();
    for (body, field) in [
        (json!({}), "event_type"),
        (json!({ "event_type": 5 }), "event_type"),
        (json!({ "event_type": "" }), "event_type"),
        (json!({ "event_type": "m".repeat(256) }), "event_type"),
        (
            json!({ "event_type": "message.received", "event_data": "x" }),
            "event_data",
        ),
        (
            json!({ "event_type": "message.received", "payload": [1] }),
            "payload",
        ),
        (
            json!({ "event_type": "message.received", "context": "x" }),
            "context",
        ),
        (
            json!({ "event_type": "message.received", "event_bindings": "x" }),
            "event_bindings",
        ),
        (
            json!({ "event_type": "message.received", "event_bindings": [route(json!({ "event_pattern": "a b" }))] }),
            "event_bindings[0].event_pattern",
        ),
        (
            json!({ "event_type": "message.received", "bogus": 1 }),
            "bogus",
        ),
    ] {
        cases.push(
            Case::new(Method::POST, dry_run.clone(), BAD)
                .json(body)
                .naming(field),
        );
    }
    let failures = run_cases(&app, &owner, &cases).await;
    assert_no_failures(&failures, cases.len());
    assert_eq!(
        app.bot(&owner, &uuid).await,
        before,
        "a refused update changed the bot"
    );
}
