//! The starred model `GET/PUT /api/v1/provider/models/llm/_/starred` and the default model
//! `GET …/llm/_/default`.

use reqwest::Method;
use serde_json::{json, Value};

use crate::helpers::fixtures::{model_path, random_uuid, DEFAULT, NOWHERE, STARRED};
use crate::helpers::Instance;

#[tokio::test]
async fn the_starred_model_is_an_llm_model_of_this_workspace() {
    let f = Instance::new().await;
    assert_eq!(f.get(STARRED).await.data(), &json!({ "uuid": null }));
    assert_eq!(f.get(DEFAULT).await.data(), &json!({ "uuid": null }));

    let chat = f.chat_provider(NOWHERE, &[]).await;
    let rerank = f.rerank_provider(NOWHERE, &[]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    let e1 = f.model("embedding", &chat, "e1").await;
    let r1 = f.model("rerank", &rerank, "r1").await;

    let res = f.send(Method::PUT, STARRED, &json!({ "uuid": l1 })).await;
    assert_eq!(res.data(), &json!({ "uuid": l1 }));
    assert_eq!(f.starred().await, json!(l1));
    assert_eq!(
        f.get(DEFAULT).await.data(),
        &json!({ "uuid": l1 }),
        "default = starred"
    );

    for (body, what) in [
        (json!({ "uuid": e1 }), "an embedding model"),
        (json!({ "uuid": r1 }), "a rerank model"),
        (json!({ "uuid": chat }), "a provider"),
        (json!({ "uuid": random_uuid() }), "an unknown uuid"),
        (json!({ "uuid": "not-a-uuid" }), "not a uuid"),
        (json!({ "uuid": 42 }), "a number"),
        (json!({ "uuid": [l2] }), "a list"),
        (json!({ "uuid": l2, "bogus": 1 }), "an unknown field"),
    ] {
        let res = f.send(Method::PUT, STARRED, &body).await;
        assert!(res.status < 500, "{what}: {}", res.text);
        res.assert_error(400, "invalid_request");
        assert_eq!(f.starred().await, json!(l1), "{what} changed the star");
    }

    let res = f.send(Method::PUT, STARRED, &json!({ "uuid": l2 })).await;
    assert_eq!(res.data(), &json!({ "uuid": l2 }));
    assert_eq!(f.get(DEFAULT).await.data()["uuid"], l2.as_str());

    let res = f.send(Method::PUT, STARRED, &json!({ "uuid": null })).await;
    assert_eq!(res.data(), &json!({ "uuid": null }));
    assert_eq!(f.starred().await, Value::Null);
    assert_eq!(f.get(DEFAULT).await.data(), &json!({ "uuid": null }));
    assert!(f.starred_rows().await.iter().all(String::is_empty));

    // An API key works too (session or API key).
    let (_, key) = f.app.create_key(&f.owner, None).await;
    let res = f
        .app
        .request(Method::PUT, STARRED)
        .header("x-api-key", &key)
        .json(&json!({ "uuid": l1 }))
        .send()
        .await;
    assert_eq!(res.data(), &json!({ "uuid": l1 }));
    let res = f
        .app
        .request(Method::GET, DEFAULT)
        .header("x-api-key", &key)
        .send()
        .await;
    assert_eq!(res.data(), &json!({ "uuid": l1 }));
}

#[tokio::test]
async fn starring_needs_provider_secret_manage_and_reading_needs_resource_view() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    f.send(Method::PUT, STARRED, &json!({ "uuid": l1 }))
        .await
        .data();
    for role in ["viewer", "operator"] {
        let m = f
            .app
            .add_member(&f.owner, &f.ws, &format!("{role}@example.com"), role)
            .await;
        let res = f
            .app
            .send_as(&m.token, Method::PUT, STARRED, &json!({ "uuid": l2 }))
            .await;
        res.assert_error(403, "permission_denied");
        assert_eq!(res.body["details"]["permission"], "provider_secret.manage");
        let res = f
            .app
            .send_as(&m.token, Method::PUT, STARRED, &json!({ "uuid": null }))
            .await;
        res.assert_error(403, "permission_denied");
        assert_eq!(
            f.app.get_as(&m.token, STARRED).await.data()["uuid"],
            l1.as_str()
        );
        assert_eq!(
            f.app.get_as(&m.token, DEFAULT).await.data()["uuid"],
            l1.as_str()
        );
    }
    let dev = f
        .app
        .add_member(&f.owner, &f.ws, "developer@example.com", "developer")
        .await;
    let res = f
        .app
        .send_as(&dev.token, Method::PUT, STARRED, &json!({ "uuid": l2 }))
        .await;
    assert_eq!(res.data()["uuid"], l2.as_str());
    // A key without resource.view cannot read it.
    let (_, narrow) = f.app.create_key(&f.owner, Some(&["workspace.view"])).await;
    for path in [STARRED, DEFAULT] {
        let res = f
            .app
            .request(Method::GET, path)
            .header("x-api-key", &narrow)
            .send()
            .await;
        res.assert_error(403, "permission_denied");
    }
}

#[tokio::test]
async fn deleting_the_starred_model_clears_the_star() {
    let f = Instance::new().await;
    let chat = f.chat_provider(NOWHERE, &[]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    f.send(Method::PUT, STARRED, &json!({ "uuid": l1 }))
        .await
        .data();
    assert_eq!(f.starred_rows().await, vec![l1.clone()]);
    // Deleting another model leaves the star.
    f.delete(&model_path("llm", &l2)).await.data();
    assert_eq!(f.starred().await, json!(l1));
    // Deleting the starred one clears it, in the database too.
    f.delete(&model_path("llm", &l1)).await.data();
    assert_eq!(f.starred().await, Value::Null);
    assert_eq!(f.get(DEFAULT).await.data()["uuid"], Value::Null);
    assert!(
        f.starred_rows().await.iter().all(String::is_empty),
        "the stored star survived the delete: {:?}",
        f.starred_rows().await
    );
}
