//! `web_page_bot`: the embeddable widget and its public, per-bot, rate-limited chat
//! endpoint (with a fake Cloudflare Turnstile `siteverify`).

use reqwest::Method;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

use super::app;
use crate::helpers::fixtures::{bot_path, echo, PlatformRig};
use crate::helpers::TestApp;

async fn chat(app: &TestApp, bot: &str, body: serde_json::Value) -> crate::helpers::Response {
    app.request(Method::POST, &format!("/bots/{bot}/chat"))
        .json(&body)
        .send()
        .await
}

#[tokio::test]
async fn the_widget_is_embedded_and_its_endpoint_answers_visitors() {
    let app = app().await;
    let rig = PlatformRig::new(
        &app,
        "web_page_bot",
        json!({ "title": "Help desk", "language": "zh_Hans" }),
    )
    .await;
    let rt = rig.runtime(&app).await;
    let public = app.settings().public_url();
    assert_eq!(
        rt["embed_code"],
        format!(
            "<script src=\"{public}/bots/{}/widget.js\" async></script>",
            rig.bot
        )
    );

    let script = app
        .request(Method::GET, &format!("/bots/{}/widget.js", rig.bot))
        .send()
        .await;
    assert_eq!(script.status, 200);
    assert!(script.headers["content-type"]
        .to_str()
        .unwrap()
        .starts_with("application/javascript"));
    assert!(
        script
            .text
            .contains(&format!("\"endpoint\":\"{public}/bots/{}/chat\"", rig.bot)),
        "{}",
        &script.text[..300]
    );
    assert!(script.text.contains("\"title\":\"Help desk\""));
    assert!(script.text.contains("输入消息"), "the configured language");

    let pre = app
        .request(Method::OPTIONS, &format!("/bots/{}/chat", rig.bot))
        .send()
        .await;
    assert_eq!(pre.status, 204);
    assert_eq!(pre.headers["access-control-allow-origin"], "*");

    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "visitor-1", "message": "hello" }),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.headers["access-control-allow-origin"], "*");
    assert_eq!(
        res.body["replies"],
        json!([{ "type": "text", "text": echo(1, "hello") }])
    );
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "visitor-1", "message": "again" }),
    )
    .await;
    assert_eq!(
        res.body["replies"][0]["text"],
        echo(2, "again"),
        "a visitor's session keeps its history"
    );
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "visitor-2", "message": "hi" }),
    )
    .await;
    assert_eq!(
        res.body["replies"][0]["text"],
        echo(1, "hi"),
        "visitors are separate sessions"
    );

    for bad in [
        json!({ "message": "no session" }),
        json!({ "session_id": "v", "message": "   " }),
        json!({ "session_id": "bad id!", "message": "x" }),
        json!({ "session_id": "v", "message": "x", "extra": 1 }),
    ] {
        let res = chat(&app, &rig.bot, bad.clone()).await;
        assert_eq!(res.status, 400, "{bad}: {}", res.text);
        assert!(res.body["error"].is_string());
    }

    app.send_as(
        &rig.owner,
        Method::PUT,
        &bot_path(&rig.bot),
        &json!({ "enable": false }),
    )
    .await
    .data();
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "visitor-1", "message": "hello" }),
    )
    .await;
    assert_eq!(res.status, 404, "a disabled widget answers nobody");
    let script = app
        .request(Method::GET, &format!("/bots/{}/widget.js", rig.bot))
        .send()
        .await;
    assert_eq!(script.status, 404);
}

#[tokio::test]
async fn visitors_are_rate_limited() {
    let app = app().await;
    let rig = PlatformRig::new(&app, "web_page_bot", json!({ "rate_limit": 2 })).await;
    for i in 0..2 {
        let res = chat(
            &app,
            &rig.bot,
            json!({ "session_id": "v1", "message": format!("m{i}") }),
        )
        .await;
        assert_eq!(res.status, 200, "{}", res.text);
    }
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v2", "message": "m3" }),
    )
    .await;
    assert_eq!(
        res.status, 429,
        "the limit is per visitor address, whatever the session id"
    );
    assert_eq!(res.headers["retry-after"], "60");
    assert_eq!(rig.model_calls().await, 2);
}

#[tokio::test]
async fn turnstile_guards_the_endpoint_when_configured() {
    let app = app().await;
    let turnstile = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/turnstile/v0/siteverify"))
        .respond_with(|req: &Request| {
            let form: Vec<(String, String)> = url::form_urlencoded::parse(&req.body).into_owned().collect();
            let has = |k: &str, v: &str| form.iter().any(|(a, b)| a == k && b == v);
            let ok = has("secret", "ts-secret") && has("response", "human-token");
            ResponseTemplate::new(200).set_body_json(json!({ "success": ok, "error-codes": if ok { json!([]) } else { json!(["invalid-input-response"]) } }))
        })
        .mount(&turnstile)
        .await;
    let config = json!({ "turnstile_site_key": "ts-site", "turnstile_secret_key": "ts-secret", "api_base_url": turnstile.uri() });
    let rig = PlatformRig::new(&app, "web_page_bot", config).await;
    let script = app
        .request(Method::GET, &format!("/bots/{}/widget.js", rig.bot))
        .send()
        .await;
    assert!(script.text.contains("\"turnstile\":\"ts-site\""));
    assert!(
        !script.text.contains("ts-secret"),
        "the secret key never reaches the page"
    );

    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "hi" }),
    )
    .await;
    assert_eq!(res.status, 403, "no token");
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "hi", "turnstile_token": "bot-token" }),
    )
    .await;
    assert_eq!(res.status, 403, "a failed check");
    rig.wait_log(&app, &rig.bot, "the Turnstile check failed")
        .await;
    assert_eq!(rig.model_calls().await, 0);
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "hi", "turnstile_token": "human-token" }),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["replies"][0]["text"], echo(1, "hi"));
}

#[tokio::test]
async fn an_attached_image_is_received_and_a_long_reply_comes_whole() {
    use base64::Engine as _;
    let app = app().await;
    let rig = PlatformRig::new(&app, "web_page_bot", json!({})).await;
    let b64 = base64::engine::general_purpose::STANDARD.encode(crate::helpers::fixtures::PNG);
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "look", "image": format!("data:image/png;base64,{b64}") }),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(res.body["replies"][0]["text"], echo(1, "look"));
    assert!(
        crate::helpers::fixtures::an_image_was_received(&app).await,
        "the image is in the message chain"
    );

    for bad in [
        "data:text/plain;base64,aGVsbG8=".to_string(),
        "data:image/png;base64,***".to_string(),
        format!("https://example.com/cat.png#{b64}"),
    ] {
        let res = chat(
            &app,
            &rig.bot,
            json!({ "session_id": "v1", "message": "x", "image": bad }),
        )
        .await;
        assert_eq!(res.status, 400, "{bad}: {}", res.text);
    }
    let huge = "A".repeat(2 * 1024 * 1024);
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "x", "image": format!("data:image/png;base64,{huge}") }),
    )
    .await;
    assert_eq!(res.status, 413, "over the body limit: {}", res.text);
    assert_eq!(
        rig.model_calls().await,
        1,
        "refused messages reach no model"
    );

    // The page has no length limit: the whole reply comes as one.
    let long = "word ".repeat(800).trim().to_string();
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": long }),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let replies = res.body["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 1, "{replies:?}");
    assert_eq!(replies[0]["text"], echo(2, &long));
}

#[tokio::test]
async fn an_answer_with_images_reaches_the_widget_and_is_recorded_without_the_data() {
    use base64::Engine as _;
    let app = app().await;
    let rig = PlatformRig::new(&app, "web_page_bot", json!({})).await;
    // A JPEG (by its signature) large enough that recording leaves its data out.
    let mut jpeg = vec![0xff, 0xd8, 0xff, 0xe0];
    jpeg.extend(std::iter::repeat_n(7u8, 1500));
    let b64 = base64::engine::general_purpose::STANDARD.encode(&jpeg);
    let data_url = format!("data:image/jpeg;base64,{b64}");
    rig.answer_with_images("Here is a cat", &[&data_url, "https://img.example/cat.png"])
        .await;
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "a cat, please" }),
    )
    .await;
    assert_eq!(res.status, 200, "{}", res.text);
    assert_eq!(
        res.body["replies"],
        json!([
            { "type": "text", "text": "Here is a cat" },
            { "type": "image", "url": data_url },
        ]),
        "the inline image is sent, the URL to fetch is not"
    );
    let recorded = crate::helpers::fixtures::recorded_replies(&app).await;
    assert_eq!(
        recorded,
        [json!([
            { "type": "Plain", "text": "Here is a cat" },
            { "type": "Image", "base64": "[base64 image omitted]" },
        ])],
        "the reply is recorded with its images, not their data"
    );
}

#[tokio::test]
async fn an_unreachable_turnstile_fails_closed_and_is_recorded() {
    let app = app().await;
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = dead.local_addr().unwrap().port();
    drop(dead);
    let config = json!({ "turnstile_site_key": "ts-site", "turnstile_secret_key": "ts-secret",
                         "api_base_url": format!("http://127.0.0.1:{port}") });
    let rig = PlatformRig::new(&app, "web_page_bot", config).await;
    let res = chat(
        &app,
        &rig.bot,
        json!({ "session_id": "v1", "message": "hi", "turnstile_token": "human-token" }),
    )
    .await;
    assert_eq!(res.status, 403, "{}", res.text);
    rig.wait_log(&app, &rig.bot, "the Turnstile check failed")
        .await;
    assert_eq!(rig.model_calls().await, 0);
}
