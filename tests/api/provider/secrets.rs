//! Secrets (`api_keys`, secret `extra_args`): revealed only with `provider_secret.manage`,
//! `***` on update keeps the stored value, `***` with nothing stored is refused.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{model_path, models_path, provider_path, CHAT, NOWHERE, PROVIDERS};
use crate::helpers::{FakeOpenAi, Instance, Member, Route};

const PROVIDER_KEYS: [&str; 2] = ["sk-live-aaaa1111", "sk-live-bbbb2222"];
const HEADER_SECRET: &str = "Bearer hdr-secret-9999";
const MODEL_KEY: &str = "model-key-7777";

/// A provider with two keys and an LLM model whose extra args hold secrets.
async fn secret_fixture(f: &Instance) -> (String, String) {
    let provider = f.chat_provider(NOWHERE, &PROVIDER_KEYS).await;
    let model = f
        .model_in(
            None,
            "llm",
            &json!({
                "name": "gpt",
                "provider_uuid": provider,
                "extra_args": {
                    "temperature": 0.5,
                    "extra_headers": { "Authorization": HEADER_SECRET, "X-Trace": "t" },
                    "api_key": MODEL_KEY,
                },
            }),
        )
        .await;
    (provider, model)
}

fn revealed_extra_args() -> Value {
    json!({
        "temperature": 0.5,
        "extra_headers": { "Authorization": HEADER_SECRET, "X-Trace": "t" },
        "api_key": MODEL_KEY,
    })
}

fn masked_extra_args() -> Value {
    json!({
        "temperature": 0.5,
        "extra_headers": { "Authorization": "***", "X-Trace": "t" },
        "api_key": "***",
    })
}

/// Reads every provider/model view as `cred` (bearer) with `query` and checks the secrets are
/// all revealed or all masked.
async fn check_secret_views(
    f: &Instance,
    who: &str,
    cred: &str,
    provider: &str,
    model: &str,
    query: &str,
    reveals: bool,
) {
    let keys = if reveals {
        json!(PROVIDER_KEYS)
    } else {
        json!(["***", "***"])
    };
    let extra_args = if reveals {
        revealed_extra_args()
    } else {
        masked_extra_args()
    };
    let sep = |path: &str| if path.contains('?') { '&' } else { '?' };
    let with_query = |path: String| {
        if query.is_empty() {
            path
        } else {
            format!("{path}{}{query}", sep(&path))
        }
    };
    let read = |path: String| async move {
        let res = f.app.get_as(cred, &path).await;
        assert_eq!(res.status, 200, "{who} GET {path}: {}", res.text);
        if !reveals {
            for secret in PROVIDER_KEYS.iter().chain([&HEADER_SECRET, &MODEL_KEY]) {
                assert!(
                    !res.text.contains(secret),
                    "{who} GET {path}: secret {secret} visible: {}",
                    res.text
                );
            }
        }
        res
    };

    let res = read(with_query(provider_path(provider))).await;
    assert_eq!(
        res.body["data"]["provider"]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(PROVIDERS.to_string())).await;
    assert_eq!(
        res.body["data"]["providers"][0]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(model_path("llm", model))).await;
    assert_eq!(
        res.body["data"]["model"]["extra_args"], extra_args,
        "{who}: {}",
        res.text
    );
    assert_eq!(
        res.body["data"]["model"]["provider"]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(models_path("llm"))).await;
    assert_eq!(
        res.body["data"]["models"][0]["extra_args"], extra_args,
        "{who}: {}",
        res.text
    );
    assert_eq!(
        res.body["data"]["models"][0]["provider"]["api_keys"], keys,
        "{who}: {}",
        res.text
    );
    let res = read(with_query(format!(
        "{}?provider_uuid={provider}",
        models_path("llm")
    )))
    .await;
    assert_eq!(
        res.body["data"]["models"][0]["extra_args"], extra_args,
        "{who}: {}",
        res.text
    );
}

#[tokio::test]
async fn secrets_are_revealed_only_to_roles_with_provider_secret_manage() {
    let f = Instance::new().await;
    let (provider, model) = secret_fixture(&f).await;
    let mut members: Vec<(Member, bool)> = Vec::new();
    for (role, reveals) in [
        ("admin", true),
        ("developer", true),
        ("operator", false),
        ("viewer", false),
    ] {
        let m = f
            .app
            .add_member(&f.owner, &f.ws, &format!("{role}@example.com"), role)
            .await;
        members.push((m, reveals));
    }
    check_secret_views(&f, "owner", &f.owner, &provider, &model, "", true).await;
    for (m, reveals) in &members {
        check_secret_views(&f, &m.email, &m.token, &provider, &model, "", *reveals).await;
    }
    // API keys: as their effective permissions say.
    let (_, full) = f.app.create_key(&f.owner, None).await;
    check_secret_views(&f, "owner key", &full, &provider, &model, "", true).await;
    let (_, view_only) = f
        .app
        .create_key(&f.owner, Some(&["resource.view", "workspace.view"]))
        .await;
    check_secret_views(
        &f,
        "resource.view key",
        &view_only,
        &provider,
        &model,
        "",
        false,
    )
    .await;
}

#[tokio::test]
async fn include_secret_masks_on_request_and_refuses_other_values() {
    let f = Instance::new().await;
    let (provider, model) = secret_fixture(&f).await;
    let viewer = f
        .app
        .add_member(&f.owner, &f.ws, "viewer@example.com", "viewer")
        .await;
    check_secret_views(
        &f,
        "owner, include_secret=false",
        &f.owner,
        &provider,
        &model,
        "include_secret=false",
        false,
    )
    .await;
    check_secret_views(
        &f,
        "owner, include_secret=true",
        &f.owner,
        &provider,
        &model,
        "include_secret=true",
        true,
    )
    .await;
    // Asking for secrets without the permission is not an error; they stay masked.
    check_secret_views(
        &f,
        "viewer, include_secret=true",
        &viewer.token,
        &provider,
        &model,
        "include_secret=true",
        false,
    )
    .await;

    for value in ["maybe", "", "1", "yes"] {
        for path in [
            provider_path(&provider),
            PROVIDERS.to_string(),
            model_path("llm", &model),
            models_path("llm"),
        ] {
            let res = f.get(&format!("{path}?include_secret={value}")).await;
            assert!(
                res.status < 500,
                "{path} include_secret={value}: {}",
                res.text
            );
            res.assert_error(400, "invalid_request");
        }
    }
}

#[tokio::test]
async fn a_masked_key_on_update_keeps_the_stored_key() {
    const ORIGINAL: &str = "sk-original-1234";
    let fake = FakeOpenAi::start().await;
    fake.mount_requiring_key(Route::Chat, ORIGINAL).await;
    let f = Instance::new().await;
    let provider = f.chat_provider(&fake.base_url(), &[ORIGINAL]).await;
    let llm = f.model("llm", &provider, "gpt").await;
    f.test_model("llm", &llm).await.data();

    // What a client that read the provider masked sends back.
    let masked = f
        .get(&format!(
            "{}?include_secret=false",
            provider_path(&provider)
        ))
        .await;
    let p = &masked.data()["provider"];
    assert_eq!(p["api_keys"], json!(["***"]));
    let res = f
        .send(
            Method::PUT,
            &provider_path(&provider),
            &json!({
                "name": "Renamed",
                "requester": p["requester"],
                "base_url": p["base_url"],
                "api_keys": p["api_keys"],
                "config": p["config"],
            }),
        )
        .await;
    res.data();
    let res = f.get(&provider_path(&provider)).await;
    assert_eq!(res.data()["provider"]["name"], "Renamed");
    assert_eq!(res.data()["provider"]["api_keys"], json!([ORIGINAL]));
    // The proof: the upstream only accepts the original key, and the test still passes.
    let res = f.test_model("llm", &llm).await;
    assert!(res.data()["latency_ms"].is_u64(), "{}", res.text);
    let sent = fake.received_on(Route::Chat).await;
    assert_eq!(
        sent.last().and_then(|r| r.authorization()),
        Some("Bearer sk-original-1234")
    );

    // A mask keeps the key at its position; new keys are added.
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "api_keys": ["***", "sk-second-5678"] }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&provider_path(&provider)).await.data()["provider"]["api_keys"],
        json!([ORIGINAL, "sk-second-5678"])
    );
    f.test_model("llm", &llm).await.data();

    // More masks than stored keys: 400, and nothing changes.
    let res = f
        .send(
            Method::PUT,
            &provider_path(&provider),
            &json!({ "api_keys": ["***", "***", "***"] }),
        )
        .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(
        f.get(&provider_path(&provider)).await.data()["provider"]["api_keys"],
        json!([ORIGINAL, "sk-second-5678"])
    );

    // A real new key replaces it — and the upstream now refuses, so the key really is used.
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "api_keys": ["sk-replaced-0000"] }),
    )
    .await
    .data();
    let res = f.test_model("llm", &llm).await;
    res.assert_error(502, "model_test_failed");
    assert_eq!(res.body["details"]["upstream_code"], "authentication");
    assert!(!res.text.contains("sk-replaced-0000"));

    // Clearing the keys, then a mask has nothing to keep.
    f.send(
        Method::PUT,
        &provider_path(&provider),
        &json!({ "api_keys": [] }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&provider_path(&provider)).await.data()["provider"]["api_keys"],
        json!([])
    );
    let res = f
        .send(
            Method::PUT,
            &provider_path(&provider),
            &json!({ "api_keys": ["***"] }),
        )
        .await;
    res.expect_field_error(
        400,
        "invalid_request",
        "api_keys[0]",
        "a mask with nothing stored on update",
    );
}

#[tokio::test]
async fn masks_with_nothing_stored_are_refused_on_create() {
    let f = Instance::new().await;
    for keys in [json!(["***"]), json!(["sk-real", "***"])] {
        let res = f
            .send(
                Method::POST,
                PROVIDERS,
                &json!({ "name": "P", "requester": CHAT, "base_url": NOWHERE, "api_keys": keys }),
            )
            .await;
        res.assert_error(400, "invalid_request");
    }
    assert!(f.provider_uuids().await.is_empty());

    let provider = f.chat_provider(NOWHERE, &["sk-real"]).await;
    for extra_args in [
        json!({ "api_key": "***" }),
        json!({ "extra_headers": { "Authorization": "***" } }),
        json!({ "extra_body": { "client_secret": "***" } }),
    ] {
        let res = f
            .send(
                Method::POST,
                &models_path("llm"),
                &json!({ "name": "m", "provider_uuid": provider, "extra_args": extra_args }),
            )
            .await;
        res.assert_error(400, "invalid_request");
    }
    assert!(f.model_uuids("llm").await.is_empty());

    // `***` outside a secret field is ordinary text.
    let uuid = f
        .model_in(
            None,
            "llm",
            &json!({ "name": "m", "provider_uuid": provider, "extra_args": { "stop": "***" } }),
        )
        .await;
    assert_eq!(
        f.get(&model_path("llm", &uuid)).await.data()["model"]["extra_args"],
        json!({ "stop": "***" })
    );
}

#[tokio::test]
async fn model_extra_args_secrets_are_masked_for_viewers_and_restored_on_update() {
    let fake = FakeOpenAi::start().await;
    fake.mount_chat("ok").await;
    let f = Instance::new().await;
    let provider = f.chat_provider(&fake.base_url(), &["sk-provider-1"]).await;
    let stored = json!({
        "temperature": 0.3,
        "extra_headers": {
            "Authorization": "Bearer hdr-secret-xyz",
            "X-Api-Key": "xkey-secret-123",
            "X-Trace": "t",
        },
    });
    let model = f
        .model_in(
            None,
            "llm",
            &json!({ "name": "gpt", "provider_uuid": provider, "extra_args": stored }),
        )
        .await;
    let viewer = f
        .app
        .add_member(&f.owner, &f.ws, "viewer@example.com", "viewer")
        .await;
    let masked = json!({
        "temperature": 0.3,
        "extra_headers": { "Authorization": "***", "X-Api-Key": "***", "X-Trace": "t" },
    });
    let res = f
        .app
        .get_as(&viewer.token, &model_path("llm", &model))
        .await;
    assert_eq!(res.data()["model"]["extra_args"], masked);
    assert!(!res.text.contains("hdr-secret-xyz") && !res.text.contains("xkey-secret-123"));
    let res = f
        .get(&format!(
            "{}?include_secret=false",
            model_path("llm", &model)
        ))
        .await;
    assert_eq!(res.data()["model"]["extra_args"], masked);

    // The owner edits what a masked read showed: the masks keep the stored secrets.
    let mut edited = masked.clone();
    edited["temperature"] = json!(0.9);
    edited["extra_headers"]["X-Trace"] = json!("t2");
    f.send(
        Method::PUT,
        &model_path("llm", &model),
        &json!({ "extra_args": edited }),
    )
    .await
    .data();
    let res = f.get(&model_path("llm", &model)).await;
    assert_eq!(
        res.data()["model"]["extra_args"],
        json!({
            "temperature": 0.9,
            "extra_headers": {
                "Authorization": "Bearer hdr-secret-xyz",
                "X-Api-Key": "xkey-secret-123",
                "X-Trace": "t2",
            },
        })
    );
    // …and they are what goes upstream.
    f.test_model("llm", &model).await.data();
    let sent = fake.only(Route::Chat).await;
    assert_eq!(sent.header("x-api-key"), Some("xkey-secret-123"));
    assert_eq!(sent.header("x-trace"), Some("t2"));
    assert_eq!(sent.body["temperature"], 0.9);

    // The submitted object replaces the stored one; masks restore only what they name.
    f.send(
        Method::PUT,
        &model_path("llm", &model),
        &json!({ "extra_args": { "extra_headers": { "Authorization": "***" } } }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("llm", &model)).await.data()["model"]["extra_args"],
        json!({ "extra_headers": { "Authorization": "Bearer hdr-secret-xyz" } })
    );
    // A new value replaces the secret.
    f.send(
        Method::PUT,
        &model_path("llm", &model),
        &json!({ "extra_args": { "extra_headers": { "Authorization": "Bearer new" } } }),
    )
    .await
    .data();
    assert_eq!(
        f.get(&model_path("llm", &model)).await.data()["model"]["extra_args"],
        json!({ "extra_headers": { "Authorization": "Bearer new" } })
    );
    // A mask where nothing is stored: 400, nothing changes.
    let res = f
        .send(
            Method::PUT,
            &model_path("llm", &model),
            &json!({ "extra_args": { "extra_headers": { "Authorization": "***", "Cookie": "***" } } }),
        )
        .await;
    res.assert_error(400, "invalid_request");
    assert_eq!(
        f.get(&model_path("llm", &model)).await.data()["model"]["extra_args"],
        json!({ "extra_headers": { "Authorization": "Bearer new" } })
    );
    // Viewers cannot update at all.
    let res = f
        .app
        .send_as(
            &viewer.token,
            Method::PUT,
            &model_path("llm", &model),
            &json!({ "extra_args": {} }),
        )
        .await;
    res.assert_error(403, "permission_denied");
}
