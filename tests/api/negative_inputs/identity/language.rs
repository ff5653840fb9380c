//! Only the eight Workspace languages, exactly as spelled.

use reqwest::Method;
use serde_json::json;

use super::{fixture, LANGUAGES};

#[tokio::test]
async fn only_the_eight_languages_are_accepted() {
    let fx = fixture().await;
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    let bad_strings = [
        "en",
        "zh-Hans",
        "zh_CN",
        "",
        " ",
        "EN_US",
        "en_us",
        "en-US",
        " en_US",
        "en_US ",
        "zh_hans",
        "zh_HANS",
        "zh",
        "ja",
        "ja-JP",
        "klingon",
        "en_US,zh_Hans",
        "en_US\n",
        "null",
        "\u{0}",
    ];
    for value in bad_strings {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        res.expect_field_error(
            400,
            "invalid_language",
            "language",
            &format!("language {value:?} with a session"),
        );
        let res = fx
            .app
            .request(Method::PUT, "/api/v1/workspaces/current/language")
            .header("x-api-key", &fx.key)
            .json(&json!({ "language": value }))
            .send()
            .await;
        res.expect_error(
            400,
            "invalid_language",
            &format!("language {value:?} with an API key"),
        );
    }
    for value in [
        json!(5),
        json!(null),
        json!(true),
        json!(["en_US"]),
        json!({ "code": "en_US" }),
        json!(1.5),
    ] {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        res.expect_field_error(
            400,
            "invalid_request",
            "language",
            &format!("language {value}"),
        );
    }
    let current = fx
        .owner_call(Method::GET, "/api/v1/workspaces/current/language")
        .await;
    assert_eq!(
        current.data()["language"],
        "en_US",
        "bad values changed nothing"
    );
    let supported = current.data()["supported_languages"].clone();
    assert_eq!(supported, json!(LANGUAGES));
    // Each of the eight is accepted exactly as spelled.
    for value in LANGUAGES {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        assert_eq!(res.data()["language"], value);
    }
}

#[tokio::test]
async fn an_over_long_language_string_is_invalid_language() {
    let fx = fixture().await;
    let language = fx.find(Method::PUT, "/workspaces/current/language");
    for value in ["x".repeat(33), "en_US".repeat(20)] {
        let res = fx.send_json(&language, &json!({ "language": value })).await;
        res.expect_field_error(
            400,
            "invalid_language",
            "language",
            &format!("a {}-character language", value.len()),
        );
    }
}
