//! The reverse WebSocket of `onebot-v11`: the implementation (NapCat, Lagrange) connects
//! to `/bots/{uuid}` with `Authorization: Bearer <access-token>` (or `?access_token=`) and
//! `X-Self-ID`. Any replica accepts; the connection's turns run there.

use std::sync::Arc;

use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::Message;
use futures_util::StreamExt;
use serde_json::json;

use super::{on_frame, Config, Link, Links};
use crate::bots::adapters::ONEBOT_V11;
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::state::AppState;

pub async fn accept(
    state: Arc<AppState>,
    req: HttpRequest,
    payload: web::Payload,
    bot: bot::Model,
) -> HttpResponse {
    let Ok(config) = Config::of(&bot) else {
        return HttpResponse::ServiceUnavailable().finish();
    };
    if config.connection_mode.as_deref() == Some("forward_ws") {
        return crate::runtime::http_bot::bot_not_found();
    }
    let auth = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok());
    if !config.admits(auth, req.query_string()) {
        status::log(
            state.store.as_ref(),
            &bot.uuid,
            LogLevel::Warning,
            "refused a OneBot connection: wrong or missing access token",
        )
        .await;
        return HttpResponse::Unauthorized()
            .json(json!({ "code": 40101, "msg": "wrong access token", "data": null }));
    }
    let self_id = req
        .headers()
        .get("x-self-id")
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty())
        .map(str::to_string);
    let (response, mut session, mut frames) = match actix_ws::handle(&req, payload) {
        Ok(parts) => parts,
        Err(e) => return HttpResponse::from_error(e),
    };
    let store = state.store.clone();
    if let Some(id) = &self_id {
        status::set_account(store.as_ref(), &bot.uuid, id, None).await;
    }
    super::super::supervisor::running(&state, &bot.uuid).await;
    status::log(
        store.as_ref(),
        &bot.uuid,
        LogLevel::Info,
        "a OneBot implementation connected",
    )
    .await;
    actix_web::rt::spawn(async move {
        let (link, mut out) = Link::new();
        let links = state.parts.get::<Links>();
        links.put(&bot.uuid, &link);
        loop {
            tokio::select! {
                Some(frame) = out.recv() => {
                    if session.text(frame).await.is_err() {
                        break;
                    }
                }
                incoming = frames.next() => match incoming {
                    Some(Ok(Message::Text(text))) => on_frame(&state, &bot, &link, ONEBOT_V11, &text).await,
                    Some(Ok(Message::Ping(p))) => {
                        if session.pong(&p).await.is_err() {
                            break;
                        }
                    }
                    Some(Ok(Message::Close(_))) | Some(Err(_)) | None => break,
                    Some(Ok(_)) => {}
                }
            }
        }
        links.remove(&bot.uuid, &link);
        status::log(
            state.store.as_ref(),
            &bot.uuid,
            LogLevel::Warning,
            "the OneBot implementation disconnected",
        )
        .await;
        let _ = session.close(None).await;
    });
    response
}
