//! An execution's lease and records while its replica works or loses the database: a turn
//! longer than the lease renews it (the reaper leaves it alone); a turn whose records could
//! not all be written ends `failed`, and API reads meanwhile answer 503 `unavailable`.

use std::time::Duration;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;

use crate::helpers::fixtures::{text, Rig};
use crate::helpers::{host_port, spawn_app, spawn_app_with, ChaosProxy};
use langbot::entities::execution;

async fn execution_of(db: &sea_orm::DatabaseConnection, message_id: &str) -> execution::Model {
    execution::Entity::find()
        .filter(execution::Column::MessageId.eq(message_id))
        .one(db)
        .await
        .unwrap()
        .expect("the message's execution")
}

#[tokio::test]
async fn a_turn_longer_than_the_lease_renews_it_and_is_not_reaped() {
    let app = spawn_app_with(|s| s.monitoring.execution_lease = Duration::from_secs(3)).await;
    // Within the fixtures' 5 s model timeout, longer than the lease.
    let rig = Rig::with_echo(&app, json!({}), Duration::from_millis(4_500)).await;
    let res = rig.send(&app, text("long", "take your time")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let id = res.body["data"]["accepted_message_id"]
        .as_str()
        .unwrap()
        .to_string();
    // Past the first lease: renewed, so not expired, and the reaper takes nothing.
    tokio::time::sleep(Duration::from_millis(3_800)).await;
    let running = execution_of(app.db(), &id).await;
    assert_eq!(running.status.as_str(), "running");
    assert!(running.lease_expires_at.unwrap() > chrono::Utc::now());
    assert_eq!(
        langbot::monitoring::maintenance::reap(app.db())
            .await
            .unwrap(),
        0
    );
    rig.callbacks(1).await;
    let done = execution_of(app.db(), &id).await;
    assert_eq!(done.status.as_str(), "completed", "{:?}", done.error);
}

#[tokio::test]
async fn a_turn_that_lost_a_record_to_a_database_outage_ends_failed() {
    if std::env::var("TEST_DATABASE_URL").is_err() {
        eprintln!("skipped: TEST_DATABASE_URL is not set (SQLite + in-process pass)");
        return;
    }
    let first = spawn_app().await;
    let db_url = first.backend.database_url.clone();
    drop(first);
    let direct = sea_orm::Database::connect(&db_url).await.unwrap();
    let proxy = ChaosProxy::start(host_port(&db_url)).await;
    let proxied = db_url.replacen(&host_port(&db_url), &format!("127.0.0.1:{}", proxy.port), 1);
    let app = spawn_app_with(|s| s.database.url = Some(proxied)).await;
    let rig = Rig::with_echo(&app, json!({}), Duration::from_secs(2)).await;
    let res = rig.send(&app, text("outage", "hello")).await;
    assert_eq!(res.status, 202, "{}", res.text);
    let id = res.body["data"]["accepted_message_id"]
        .as_str()
        .unwrap()
        .to_string();
    // The model is answering (2 s): the database goes away, so the model call's record fails.
    for _ in 0..100 {
        let e = execution::Entity::find()
            .filter(execution::Column::MessageId.eq(&id))
            .one(&direct)
            .await
            .unwrap();
        if e.is_some_and(|e| e.progress_event.as_deref() == Some("ai")) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    proxy.break_link();
    let read = app
        .get_as(&rig.owner, "/api/v1/monitoring/executions")
        .await;
    read.assert_error(503, "unavailable");
    // Back before the end's retries give up: the end is written, as failed.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    proxy.mend();
    rig.callbacks(1).await;
    let mut ended = execution_of(&direct, &id).await;
    for _ in 0..100 {
        if ended.status.as_str() != "running" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        ended = execution_of(&direct, &id).await;
    }
    assert_eq!(ended.status.as_str(), "failed");
    assert!(
        ended
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("could not be written"),
        "{:?}",
        ended.error
    );
}
