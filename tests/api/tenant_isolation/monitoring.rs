//! B's monitoring records (by id, by B's bot and session) and B's sessions are out of A's
//! reach; B's owner still resets the session A could not.

use reqwest::Method;
use serde_json::json;

use super::attacks::Resource;
use super::{assert_resource_isolated, B_SESSION};

#[tokio::test]
async fn bs_monitoring_records_and_sessions_are_not_found_or_reset_for_a() {
    let w = assert_resource_isolated(Resource::Monitoring).await;
    // The session A could not reset is B's to reset: the 404s were isolation.
    let res = w
        .app
        .call(
            &w.owner,
            Some(w.ws_b.as_str()),
            Method::POST,
            "/api/v1/monitoring/sessions/reset-context",
            Some(&json!({ "bot_id": w.bot_b, "session_id": B_SESSION })),
        )
        .await;
    assert!(
        res.status == 200 && res.body["data"]["reset"] == true,
        "B's owner resetting B's session after the attacks: {} {}",
        res.status,
        res.text
    );
}
