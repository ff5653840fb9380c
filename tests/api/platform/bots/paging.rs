//! The bots list pages in the database: creation order, `limit`/`offset` (default 100, max
//! 500), `total` counting the whole Workspace, pages past the end, other Workspaces unseen.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{http_bot_config, BOTS};
use crate::helpers::{spawn_app_with, Cred};

fn names(data: &Value) -> Vec<String> {
    data["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap().to_string())
        .collect()
}

fn page(data: &Value) -> (Value, Value, Value) {
    (
        data["total"].clone(),
        data["limit"].clone(),
        data["offset"].clone(),
    )
}

#[tokio::test]
async fn the_bots_list_pages_in_creation_order_with_the_workspace_total() {
    let app = spawn_app_with(|s| s.workspaces.multi = true).await;
    let owner = app.init_owner().await;
    let empty = app.get_as(&owner, BOTS).await;
    assert_eq!(names(empty.data()), Vec::<String>::new());
    assert_eq!(page(empty.data()), (json!(0), json!(100), json!(0)));
    for i in 0..5 {
        let body = json!({ "name": format!("bot{i}"), "adapter": "http_bot", "adapter_config": http_bot_config("s3cret") });
        app.create_bot(Cred::from(owner.as_str()), None, &body)
            .await;
    }
    // Another Workspace's bots count nowhere here.
    let other = app.create_workspace(&owner, "Other").await;
    let body = json!({ "name": "elsewhere", "adapter": "http_bot", "adapter_config": http_bot_config("s3cret") });
    app.create_bot(Cred::from(owner.as_str()), Some(&other), &body)
        .await;

    let all = app.get_as(&owner, BOTS).await;
    assert_eq!(names(all.data()), ["bot0", "bot1", "bot2", "bot3", "bot4"]);
    assert_eq!(page(all.data()), (json!(5), json!(100), json!(0)));

    let middle = app
        .get_as(&owner, &format!("{BOTS}?limit=2&offset=1"))
        .await;
    assert_eq!(names(middle.data()), ["bot1", "bot2"]);
    assert_eq!(page(middle.data()), (json!(5), json!(2), json!(1)));

    let tail = app
        .get_as(&owner, &format!("{BOTS}?limit=2&offset=4"))
        .await;
    assert_eq!(names(tail.data()), ["bot4"]);
    assert_eq!(page(tail.data()), (json!(5), json!(2), json!(4)));

    // Past the end: no rows, the total still counted.
    let past = app.get_as(&owner, &format!("{BOTS}?offset=7")).await;
    assert_eq!(names(past.data()), Vec::<String>::new());
    assert_eq!(page(past.data()), (json!(5), json!(100), json!(7)));

    let max = app.get_as(&owner, &format!("{BOTS}?limit=500")).await;
    assert_eq!(page(max.data()).0, json!(5));
    for bad in ["limit=0", "limit=501", "offset=-1", "limit=x", "page=2"] {
        let res = app
            .request(Method::GET, &format!("{BOTS}?{bad}"))
            .bearer(&owner)
            .send()
            .await;
        assert_eq!(res.status, 400, "{bad}: {}", res.body);
    }

    let elsewhere = app
        .request(Method::GET, BOTS)
        .bearer(&owner)
        .header("x-workspace-id", &other)
        .send()
        .await;
    assert_eq!(names(elsewhere.data()), ["elsewhere"]);
    assert_eq!(page(elsewhere.data()).0, json!(1));
}
