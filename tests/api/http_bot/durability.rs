//! An accepted (202) message is durable before it is acknowledged: its execution is on
//! record, `queued`, when the 202 is sent. A replica that dies right after accepting leaves
//! that execution to the others' reaper (failed when its lease lapses, nothing answered);
//! a message waiting longer than the lease (aggregation) keeps it renewed; a message merged
//! into another's turn ends `ignored`, saying so.

use std::time::Duration;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;

use crate::helpers::fixtures::{eventually, reply_text, text, Rig};
use crate::helpers::spawn_app_with;
use langbot::entities::execution;
use langbot::monitoring::maintenance::reap;

const LEASE: Duration = Duration::from_secs(3);

async fn executions_of(
    db: &sea_orm::DatabaseConnection,
    message_id: &str,
) -> Vec<execution::Model> {
    execution::Entity::find()
        .filter(execution::Column::MessageId.eq(message_id))
        .all(db)
        .await
        .unwrap()
}

fn accepted_id(res: &crate::helpers::Response) -> String {
    assert_eq!(res.status, 202, "{}", res.text);
    res.body["data"]["accepted_message_id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn a_message_whose_replica_dies_right_after_accepting_it_is_failed_not_lost() {
    let app = spawn_app_with(|s| s.monitoring.execution_lease = LEASE).await;
    // The turn waits 2 s in the aggregation window: the replica dies before it starts.
    let rig = Rig::new(
        &app,
        json!({ "trigger": { "message-aggregation": { "enabled": true, "delay": 2.0 } } }),
    )
    .await;
    let id = accepted_id(&rig.send(&app, text("dies", "hello")).await);
    app.state().tasks.crash();

    let recorded = executions_of(app.db(), &id).await;
    assert_eq!(
        recorded.len(),
        1,
        "the acknowledged message has its execution on record"
    );
    assert_eq!(recorded[0].status.as_str(), "queued");
    assert_eq!(recorded[0].pipeline_id, rig.pipeline);
    assert_eq!(recorded[0].owner.as_deref(), Some(&*app.state().replica));
    // Nobody renews it any more: within the lease plus a reaper pass it is failed.
    let reaped = eventually(
        "the reaper fails the dead replica's execution",
        10,
        || async {
            reap(app.db()).await.unwrap();
            let e = executions_of(app.db(), &id).await.pop()?;
            (e.status.as_str() == "failed").then_some(e)
        },
    )
    .await;
    assert!(
        reaped
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("stopped renewing"),
        "{:?}",
        reaped.error
    );
    assert!(reaped.finished_at.is_some());
    // Past the aggregation window: the dead replica's turn never ran, so nothing answered.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(rig.callback_count().await, 0, "a dead replica answered");
    assert!(rig.fake.received().await.is_empty(), "the model was called");
    assert_eq!(executions_of(app.db(), &id).await.len(), 1);
}

#[tokio::test]
async fn a_message_waiting_longer_than_the_lease_is_renewed_and_a_merged_one_ends_ignored() {
    let app = spawn_app_with(|s| s.monitoring.execution_lease = LEASE).await;
    let rig = Rig::new(
        &app,
        json!({ "trigger": { "message-aggregation": { "enabled": true, "delay": 4.5 } } }),
    )
    .await;
    let lead = accepted_id(&rig.send(&app, text("wait", "a")).await);
    let merged = accepted_id(&rig.send(&app, text("wait", "b")).await);
    // Past the first lease, still in the window: renewed, so the reaper takes nothing.
    tokio::time::sleep(LEASE + Duration::from_millis(800)).await;
    assert_eq!(reap(app.db()).await.unwrap(), 0);
    let waiting = executions_of(app.db(), &lead).await;
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].status.as_str(), "queued");
    assert!(waiting[0].lease_expires_at.unwrap() > chrono::Utc::now());

    let callbacks = rig.callbacks(1).await;
    assert_eq!(reply_text(&callbacks[0].0), "echo(1): a\nb");
    let done = eventually("the lead's execution completes", 10, || async {
        let e = executions_of(app.db(), &lead).await.pop()?;
        (e.status.as_str() == "completed").then_some(e)
    })
    .await;
    assert_eq!(done.message_id.as_deref(), Some(lead.as_str()));
    let merged = executions_of(app.db(), &merged).await;
    assert_eq!(merged.len(), 1, "one execution per accepted message");
    assert_eq!(merged[0].status.as_str(), "ignored");
    assert!(
        merged[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("merged into an earlier message's turn"),
        "{:?}",
        merged[0].error
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rig.callback_count().await, 1, "one turn answers both");
}
