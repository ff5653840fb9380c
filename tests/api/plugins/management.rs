//! Managing plugins without running them (`plugin.enable` off): packages are checked (a
//! corrupt file, a manifest whose Tool schema is invalid), an installed plugin is listed with
//! its components, config (the manifest's form, secrets masked), readme and icon, can be
//! disabled and uninstalled; marketplace and GitHub installs are refused clearly.

use reqwest::Method;
use serde_json::json;

use crate::helpers::plugins::{fixture_dir, weather_package, PLUGINS};
use crate::helpers::spawn_app;

#[tokio::test]
async fn bad_packages_are_refused_with_the_reason() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    let res = app
        .upload_plugin(&owner, None, b"this is not a zip file")
        .await;
    assert_eq!(res.status, 400, "{}", res.text);
    assert_eq!(res.body["code"], "invalid_plugin_package");

    // The fixture with one Tool's parameters made a string schema.
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("weather");
    let status = std::process::Command::new("cp")
        .args(["-r"])
        .arg(fixture_dir())
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(status.success());
    let tool = copy.join("components/tools/stall.yaml");
    let yaml = std::fs::read_to_string(&tool).expect("tool yaml");
    std::fs::write(
        &tool,
        yaml.replace("    type: object\n", "    type: string\n"),
    )
    .expect("write");
    let bytes = langbot::plugins::package::pack_dir(&copy).expect("pack");
    let res = app.upload_plugin(&owner, None, &bytes).await;
    assert_eq!(res.status, 400, "{}", res.text);
    assert_eq!(res.body["code"], "invalid_plugin_package");
    assert!(res.text.contains("type: object"), "{}", res.text);

    // No file at all.
    let res = app
        .request(Method::POST, &format!("{PLUGINS}/install/local"))
        .bearer(&owner)
        .raw_body("multipart/form-data; boundary=x", b"--x--\r\n".to_vec())
        .send()
        .await;
    assert_eq!(res.status, 400, "{}", res.text);

    for source in ["marketplace", "github"] {
        let res = app
            .call(
                &owner,
                None,
                Method::POST,
                &format!("{PLUGINS}/install/{source}"),
                Some(&json!({})),
            )
            .await;
        assert_eq!(res.status, 400, "{}", res.text);
        assert_eq!(res.body["code"], "plugin_source_unavailable");
        assert!(
            res.text.contains("not available on this host"),
            "{}",
            res.text
        );
    }
    let res = app.call(&owner, None, Method::GET, PLUGINS, None).await;
    assert_eq!(res.data()["plugins"], json!([]));
}

#[tokio::test]
async fn an_installed_plugin_is_listed_configured_and_uninstalled() {
    let app = spawn_app().await;
    let owner = app.init_owner().await;
    app.install_weather(&owner, None).await;
    let plugin_path = format!("{PLUGINS}/tester/weather");

    let res = app.call(&owner, None, Method::GET, PLUGINS, None).await;
    let plugins = res.data()["plugins"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(plugins.len(), 1, "{}", res.text);
    let p = &plugins[0];
    assert_eq!(p["manifest"]["manifest"]["metadata"]["author"], "tester");
    assert_eq!(p["enabled"], true);
    assert_eq!(p["status"], "unmounted", "the plugin system is off");
    let kinds: Vec<&str> = p["components"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["manifest"]["manifest"]["kind"].as_str())
        .collect();
    assert_eq!(kinds, vec!["Tool"; 9]);
    assert_eq!(
        p["plugin_config"],
        json!({ "greeting": "hello", "api_key": "", "document": null })
    );

    // Config: the manifest's form; secrets masked, `***` keeps them; unknown fields refused.
    let config = format!("{plugin_path}/config");
    let res = app
        .call(
            &owner,
            None,
            Method::PUT,
            &config,
            Some(&json!({ "greeting": "hey", "api_key": "s3cret" })),
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let res = app.call(&owner, None, Method::GET, &config, None).await;
    assert_eq!(
        res.data()["config"],
        json!({ "greeting": "hey", "api_key": "***", "document": null })
    );
    let res = app
        .call(
            &owner,
            None,
            Method::PUT,
            &config,
            Some(&json!({ "greeting": "hi", "api_key": "***" })),
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let res = app
        .call(
            &owner,
            None,
            Method::PUT,
            &config,
            Some(&json!({ "nope": 1 })),
        )
        .await;
    assert_eq!(res.status, 400, "{}", res.text);
    let res = app
        .call(
            &owner,
            None,
            Method::PUT,
            &config,
            Some(&json!({ "greeting": 5 })),
        )
        .await;
    assert_eq!(res.status, 400, "{}", res.text);

    // Readme (and a translated one), icon, logs.
    let res = app
        .call(
            &owner,
            None,
            Method::GET,
            &format!("{plugin_path}/readme"),
            None,
        )
        .await;
    assert!(
        res.data()["readme"].as_str().is_some_and(|r| !r.is_empty()),
        "{}",
        res.text
    );
    let res = app
        .call(
            &owner,
            None,
            Method::GET,
            &format!("{plugin_path}/readme?language=zh_Hans"),
            None,
        )
        .await;
    assert!(
        res.data()["readme"].as_str().is_some_and(|r| !r.is_empty()),
        "{}",
        res.text
    );
    let res = app
        .call(
            &owner,
            None,
            Method::GET,
            &format!("{plugin_path}/icon"),
            None,
        )
        .await;
    assert_eq!(res.data()["mime_type"], "image/svg+xml", "{}", res.text);
    // LangBot's UI fetches the image itself; the built-in agent has one under LangBot's name.
    for (path, expected) in [
        (format!("{plugin_path}/authenticated-icon"), None),
        (
            "/api/v1/plugins/langbot-team/LocalAgent/authenticated-icon".to_string(),
            Some("Local Agent"),
        ),
    ] {
        let res = app.call(&owner, None, Method::GET, &path, None).await;
        assert_eq!(res.status, 200, "{path}: {}", res.text);
        assert_eq!(res.header("content-type"), Some("image/svg+xml"), "{path}");
        assert!(res.text.starts_with("<svg"), "{path}: {}", res.text);
        if let Some(label) = expected {
            assert!(res.text.contains(label), "{}", res.text);
        }
    }
    let res = app
        .call(
            &owner,
            None,
            Method::GET,
            "/api/v1/plugins/nobody/Nothing/authenticated-icon",
            None,
        )
        .await;
    res.assert_error(404, "resource_not_found");
    let res = app
        .call(
            &owner,
            None,
            Method::GET,
            &format!("{plugin_path}/logs"),
            None,
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let res = app
        .call(
            &owner,
            None,
            Method::GET,
            "/api/v1/system/status/plugin-system",
            None,
        )
        .await;
    assert_eq!(res.data()["is_enable"], false, "{}", res.text);
    assert_eq!(res.data()["runtime_state"], "disabled");

    // Disable, reinstall (keeps the config, enables again), uninstall.
    let res = app
        .call(
            &owner,
            None,
            Method::PUT,
            &format!("{plugin_path}/enabled"),
            Some(&json!({ "enabled": false })),
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let res = app
        .call(&owner, None, Method::GET, &plugin_path, None)
        .await;
    assert_eq!(res.data()["plugin"]["enabled"], false);
    let res = app.upload_plugin(&owner, None, &weather_package()).await;
    assert_eq!(res.data()["plugin"]["enabled"], true, "{}", res.text);
    assert_eq!(res.data()["plugin"]["plugin_config"]["greeting"], "hi");
    let res = app
        .call(
            &owner,
            None,
            Method::DELETE,
            &format!("{plugin_path}?delete_data=maybe"),
            None,
        )
        .await;
    assert_eq!(res.status, 400, "{}", res.text);
    let res = app
        .call(
            &owner,
            None,
            Method::DELETE,
            &format!("{plugin_path}?delete_data=true"),
            None,
        )
        .await;
    assert_eq!(res.status, 200, "{}", res.text);
    let res = app
        .call(&owner, None, Method::GET, &plugin_path, None)
        .await;
    assert_eq!(res.status, 404, "{}", res.text);
}
