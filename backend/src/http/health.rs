//! `GET /healthz` (alive) and `GET /readyz` (database and session store reachable).

use std::time::Duration;

use actix_web::{web, HttpResponse};
use serde_json::json;

use crate::state::AppState;

const CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// A fixed body: nothing to build or serialize per request.
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(r#"{"status":"ok"}"#)
}

pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let health = state.parts.get::<crate::db_health::DbHealth>();
    // Known down: no need to wait for the pool to say so.
    let db_ok = !health.is_down()
        && matches!(
            tokio::time::timeout(CHECK_TIMEOUT, state.db.ping()).await,
            Ok(Ok(()))
        );
    let store = tokio::time::timeout(CHECK_TIMEOUT, state.store.ping()).await;
    let verdict = |ok: bool| if ok { "ok" } else { "unavailable" };
    let store_ok = matches!(store, Ok(Ok(())));
    if !db_ok {
        health.suspect();
        tracing::warn!(check = "database", "readiness check failed");
    }
    if !store_ok {
        tracing::warn!(check = "session_store", "readiness check failed");
    }
    let body = json!({
        "status": verdict(db_ok && store_ok),
        "checks": {
            "database": verdict(db_ok),
            "session_store": verdict(store_ok),
        },
    });
    if db_ok && store_ok {
        HttpResponse::Ok().json(body)
    } else {
        HttpResponse::ServiceUnavailable().json(body)
    }
}
