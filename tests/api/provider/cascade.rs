//! Deleting providers: refused with 409 `provider_has_models` while models exist, `?cascade=true`
//! deletes them all in one transaction (and rolls back on failure), races leave no orphans.

use reqwest::Method;
use sea_orm::{ConnectionTrait, DbBackend};
use serde_json::{json, Value};

use super::{sorted, strings};
use crate::helpers::fixtures::{
    model_config, model_path, models_path, provider_path, DEFAULT, NOWHERE, STARRED,
};
use crate::helpers::Instance;

/// A chat provider with two LLMs and an embedding model, a rerank provider with one rerank
/// model, a second chat provider with one LLM; the first LLM is starred.
struct Populated {
    chat: String,
    rerank: String,
    other: String,
    l1: String,
    l2: String,
    e1: String,
    r1: String,
    l3: String,
}

async fn populate(f: &Instance) -> Populated {
    let chat = f.chat_provider(NOWHERE, &["sk-1"]).await;
    let rerank = f.rerank_provider(NOWHERE, &["sk-2"]).await;
    let other = f.chat_provider(NOWHERE, &["sk-3"]).await;
    let l1 = f.model("llm", &chat, "l1").await;
    let l2 = f.model("llm", &chat, "l2").await;
    let e1 = f.model("embedding", &chat, "e1").await;
    let r1 = f.model("rerank", &rerank, "r1").await;
    let l3 = f.model("llm", &other, "l3").await;
    f.send(Method::PUT, STARRED, &json!({ "uuid": l1 }))
        .await
        .data();
    Populated {
        chat,
        rerank,
        other,
        l1,
        l2,
        e1,
        r1,
        l3,
    }
}

#[tokio::test]
async fn deleting_a_provider_with_models_needs_cascade() {
    let f = Instance::new().await;
    let p = populate(&f).await;
    let before = f.everything().await;
    for query in ["", "?cascade=false"] {
        let res = f
            .delete(&format!("{}{query}", provider_path(&p.chat)))
            .await;
        res.assert_error(409, "provider_has_models");
        assert_eq!(
            res.body["details"],
            json!({ "llm": 2, "embedding": 1, "rerank": 0 }),
            "{}",
            res.text
        );
    }
    let res = f.delete(&provider_path(&p.rerank)).await;
    res.assert_error(409, "provider_has_models");
    assert_eq!(
        res.body["details"],
        json!({ "llm": 0, "embedding": 0, "rerank": 1 })
    );
    assert_eq!(
        f.everything().await,
        before,
        "a refused delete changed something"
    );
}

#[tokio::test]
async fn a_cascade_delete_removes_the_provider_and_its_models_and_reports_them() {
    let f = Instance::new().await;
    let p = populate(&f).await;
    // Pipelines naming the provider's models: as primary (the starred model is the default
    // primary on create), as a fallback; and one naming only another provider's model.
    let by_primary = f.pipeline(json!({ "name": "By primary" })).await;
    let by_fallback = f
        .pipeline(json!({
            "name": "By fallback",
            "config": model_config(&p.l3, &[p.l2.as_str()]),
        }))
        .await;
    f.pipeline(json!({ "name": "Unrelated", "config": model_config(&p.l3, &[]) }))
        .await;

    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.chat)))
        .await;
    let report = res.data();
    assert_eq!(report["deleted"]["provider"], p.chat.as_str());
    assert_eq!(
        sorted(strings(&report["deleted"]["llm"])),
        sorted(vec![p.l1.clone(), p.l2.clone()])
    );
    assert_eq!(report["deleted"]["embedding"], json!([p.e1]));
    assert_eq!(report["deleted"]["rerank"], json!([]));
    assert_eq!(report["starred_cleared"], true);
    let mut referencing: Vec<Value> = report["referencing_pipelines"]
        .as_array()
        .expect("referencing_pipelines")
        .clone();
    referencing.sort_by_key(|r| r["name"].as_str().map(str::to_string));
    assert_eq!(
        referencing,
        vec![
            json!({ "uuid": by_fallback, "name": "By fallback" }),
            json!({ "uuid": by_primary, "name": "By primary" }),
        ]
    );

    f.get(&provider_path(&p.chat))
        .await
        .assert_error(404, "resource_not_found");
    for (kind, uuid) in [("llm", &p.l1), ("llm", &p.l2), ("embedding", &p.e1)] {
        f.get(&model_path(kind, uuid))
            .await
            .assert_error(404, "resource_not_found");
    }
    assert_eq!(f.model_uuids("llm").await, vec![p.l3.clone()]);
    assert!(f.model_uuids("embedding").await.is_empty());
    assert_eq!(f.model_uuids("rerank").await, vec![p.r1.clone()]);
    assert_eq!(f.starred().await, Value::Null);
    assert_eq!(f.get(DEFAULT).await.data()["uuid"], Value::Null);
    assert!(
        f.starred_rows().await.iter().all(String::is_empty),
        "the stored star survived the cascade: {:?}",
        f.starred_rows().await
    );
    assert_eq!(
        sorted(f.provider_uuids().await),
        sorted(vec![p.rerank.clone(), p.other.clone()])
    );

    // A cascade that does not touch the starred model keeps the star.
    f.send(Method::PUT, STARRED, &json!({ "uuid": p.l3 }))
        .await
        .data();
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.rerank)))
        .await;
    let report = res.data();
    assert_eq!(report["referencing_pipelines"], json!([]));
    assert_eq!(report["deleted"]["provider"], p.rerank.as_str());
    assert_eq!(report["deleted"]["llm"], json!([]));
    assert_eq!(report["deleted"]["embedding"], json!([]));
    assert_eq!(report["deleted"]["rerank"], json!([p.r1]));
    assert_eq!(report["starred_cleared"], false);
    assert_eq!(f.starred().await, json!(p.l3));
    assert!(f.model_uuids("rerank").await.is_empty());

    // A cascade of a provider without models.
    let empty = f.chat_provider(NOWHERE, &[]).await;
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&empty)))
        .await;
    let report = res.data();
    assert_eq!(report["deleted"]["provider"], empty.as_str());
    assert_eq!(report["starred_cleared"], false);
    assert_eq!(f.provider_uuids().await, vec![p.other.clone()]);

    // The star's own provider, last.
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.other)))
        .await;
    assert_eq!(res.data()["starred_cleared"], true);
    assert_eq!(res.data()["deleted"]["llm"], json!([p.l3]));
    assert!(f.provider_uuids().await.is_empty());
    assert!(f.model_uuids("llm").await.is_empty());
    assert_eq!(f.starred().await, Value::Null);
}

#[tokio::test]
async fn cascade_must_be_exactly_true_or_false() {
    let f = Instance::new().await;
    let p = populate(&f).await;
    let empty = f.chat_provider(NOWHERE, &[]).await;
    let before = f.everything().await;
    for query in [
        "cascade=1",
        "cascade=0",
        "cascade=True",
        "cascade=TRUE",
        "cascade=False",
        "cascade=",
        "cascade",
        "cascade=yes",
        "cascade=%20true",
        "cascade=true&cascade=true",
        "cascade=false&cascade=true",
        "cascade=true&force=1",
    ] {
        for provider in [&p.chat, &empty] {
            let res = f
                .delete(&format!("{}?{query}", provider_path(provider)))
                .await;
            assert!(res.status < 500, "?{query}: {}", res.text);
            assert_eq!(
                (res.status, res.body["code"].as_str()),
                (400, Some("invalid_request")),
                "?{query}: {}",
                res.text
            );
            res.assert_error(400, "invalid_request");
        }
    }
    assert_eq!(
        f.everything().await,
        before,
        "a refused delete changed something"
    );
}

#[tokio::test]
async fn deleting_providers_and_models_needs_resource_manage() {
    let f = Instance::new().await;
    let p = populate(&f).await;
    let before = f.everything().await;
    for role in ["viewer", "operator"] {
        let m = f
            .app
            .add_member(&f.owner, &f.ws, &format!("{role}@example.com"), role)
            .await;
        for path in [
            provider_path(&p.chat),
            format!("{}?cascade=true", provider_path(&p.chat)),
            model_path("llm", &p.l1),
            model_path("embedding", &p.e1),
            model_path("rerank", &p.r1),
        ] {
            let res = f
                .app
                .request(Method::DELETE, &path)
                .bearer(&m.token)
                .send()
                .await;
            res.assert_error(403, "permission_denied");
            assert_eq!(
                res.body["details"]["permission"], "resource.manage",
                "{}",
                res.text
            );
        }
    }
    assert_eq!(f.everything().await, before);

    // A developer holds resource.manage.
    let dev = f
        .app
        .add_member(&f.owner, &f.ws, "developer@example.com", "developer")
        .await;
    let res = f
        .app
        .request(
            Method::DELETE,
            &format!("{}?cascade=true", provider_path(&p.rerank)),
        )
        .bearer(&dev.token)
        .send()
        .await;
    assert_eq!(res.data()["deleted"]["rerank"], json!([p.r1]));
}

#[tokio::test]
async fn a_failed_cascade_delete_changes_nothing() {
    let f = Instance::new().await;
    let p = populate(&f).await;
    let before = f.everything().await;
    let db = f.app.db();
    let backend = db.get_database_backend();
    let (create, drop): (Vec<&str>, Vec<&str>) = match backend {
        DbBackend::Sqlite => (
            vec![
                "CREATE TRIGGER lb_test_abort_provider_delete BEFORE DELETE ON model_providers \
                 BEGIN SELECT RAISE(ABORT, 'injected'); END;",
            ],
            vec!["DROP TRIGGER lb_test_abort_provider_delete"],
        ),
        DbBackend::Postgres => (
            vec![
                "CREATE FUNCTION lb_test_abort_provider_delete() RETURNS trigger LANGUAGE plpgsql AS \
                 $$ BEGIN RAISE EXCEPTION 'injected'; END; $$",
                "CREATE TRIGGER lb_test_abort_provider_delete BEFORE DELETE ON model_providers \
                 FOR EACH ROW EXECUTE FUNCTION lb_test_abort_provider_delete()",
            ],
            vec![
                "DROP TRIGGER lb_test_abort_provider_delete ON model_providers",
                "DROP FUNCTION lb_test_abort_provider_delete()",
            ],
        ),
        other => panic!("unexpected database backend {other:?}"),
    };
    for sql in create {
        db.execute_unprepared(sql)
            .await
            .expect("create the trigger");
    }

    // The provider row is deleted last: by then its models and the star are gone — in the
    // transaction, which must roll back.
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.chat)))
        .await;
    assert!(
        (500..600).contains(&res.status),
        "the injected failure must surface as a 5xx, got {}: {}",
        res.status,
        res.text
    );
    assert!(res.body["code"].as_str().is_some(), "{}", res.text);
    assert!(
        !res.text.contains("injected"),
        "internal causes are not sent: {}",
        res.text
    );

    for sql in drop {
        db.execute_unprepared(sql).await.expect("drop the trigger");
    }
    assert_eq!(
        f.everything().await,
        before,
        "a failed cascade left partial changes"
    );
    assert_eq!(f.starred().await, json!(p.l1));
    assert_eq!(f.starred_rows().await, vec![p.l1.clone()]);
    for (kind, uuid) in [("llm", &p.l1), ("llm", &p.l2), ("embedding", &p.e1)] {
        f.get(&model_path(kind, uuid)).await.data();
    }

    // Without the trigger, the same cascade works.
    let res = f
        .delete(&format!("{}?cascade=true", provider_path(&p.chat)))
        .await;
    assert_eq!(res.data()["starred_cleared"], true);
    assert_eq!(f.model_uuids("llm").await, vec![p.l3.clone()]);
}

#[tokio::test]
async fn a_cascade_delete_racing_model_creates_leaves_no_orphans_and_no_server_errors() {
    // Models created while their provider is being cascade-deleted either make it into the
    // cascade or are refused because the provider is gone; never an orphan, never a 5xx.
    let f = Instance::new().await;
    let mut problems = Vec::new();
    for round in 0..15 {
        let provider = f.chat_provider(NOWHERE, &[]).await;
        f.model("llm", &provider, "seed").await;
        let requests: Vec<(String, Value)> = (0..6)
            .map(|i| {
                (
                    models_path(if i % 2 == 0 { "llm" } else { "embedding" }),
                    json!({ "name": format!("racer-{i}"), "provider_uuid": provider }),
                )
            })
            .collect();
        let creates = requests
            .iter()
            .map(|(path, body)| f.send(Method::POST, path, body));
        let delete_path = format!("{}?cascade=true", provider_path(&provider));
        let delete = f.delete(&delete_path);
        let (deleted, created) = tokio::join!(delete, futures_util::future::join_all(creates));
        let labelled = created
            .iter()
            .map(|r| ("model create", r))
            .chain(std::iter::once(("cascade delete", &deleted)));
        for (what, res) in labelled {
            if res.status >= 500 {
                problems.push(format!(
                    "round {round}: {what}: {} {}",
                    res.status, res.text
                ));
            }
        }
        if deleted.status == 200 {
            for kind in ["llm", "embedding"] {
                let res = f.get(&format!("{}?limit=500", models_path(kind))).await;
                for m in res.data()["models"].as_array().into_iter().flatten() {
                    if m["provider_uuid"] == provider.as_str() {
                        problems.push(format!(
                            "round {round}: {kind} model {} outlived its provider",
                            m["uuid"]
                        ));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}
