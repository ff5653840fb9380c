//! Each Workspace records only its own turns (the world's own checks), and sees only its own
//! executions in flight.

use reqwest::Method;

use super::world::{ids, World};
use crate::helpers::Cred;

#[tokio::test]
async fn in_flight_each_workspace_sees_its_own_executions_and_none_of_the_others() {
    let w = World::build().await;
    // In flight (executions started in the last 30 s): each Workspace sees its own, now.
    for (cred, ws, mine, theirs, who) in [
        (
            &w.admin_a,
            w.ws_a.as_str(),
            &w.recorded_a,
            &w.recorded_b,
            "A's admin",
        ),
        (
            &w.owner,
            w.ws_b.as_str(),
            &w.recorded_b,
            &w.recorded_a,
            "B's owner",
        ),
    ] {
        let cred: &Cred = cred;
        let res = w
            .app
            .call(
                cred,
                Some(ws),
                Method::GET,
                "/api/v1/monitoring/in-flight",
                None,
            )
            .await;
        let shown = ids(
            res.data()["items"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default(),
            "id",
        );
        assert!(
            shown.is_superset(&ids(&mine.executions, "id"))
                && shown.is_disjoint(&ids(&theirs.executions, "id")),
            "in-flight as {who}: {}",
            res.text
        );
    }
}
