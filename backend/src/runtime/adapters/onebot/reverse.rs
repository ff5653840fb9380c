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
use crate::bots::status::{self, AdapterState, LogLevel};
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
    let mut changes = state.store.subscribe(status::CHANGED_CHANNEL).await.ok();
    actix_web::rt::spawn(async move {
        let (link, mut out) = Link::new();
        let links = state.parts.get::<Links>();
        links.put(&bot.uuid, &link);
        let mut stopped = false;
        loop {
            let changed = async {
                match changes.as_mut() {
                    Some(sub) => sub.next().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                change = changed => match change {
                    Some(uuid) if uuid == bot.uuid.as_bytes() => {
                        if !still_current(&state, &bot).await {
                            stopped = true;
                            break;
                        }
                    }
                    Some(_) => {}
                    None => changes = state.store.subscribe(status::CHANGED_CHANNEL).await.ok(),
                },
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
        let store = state.store.as_ref();
        if stopped {
            let why = "closed the OneBot connection: the bot was disabled, deleted or reconfigured";
            status::log(store, &bot.uuid, LogLevel::Info, why).await;
            status::set(store, &bot.uuid, AdapterState::Stopped, None, None).await;
        } else {
            let why = "the OneBot implementation disconnected; waiting for it to connect again";
            status::log(store, &bot.uuid, LogLevel::Warning, why).await;
            status::set(store, &bot.uuid, AdapterState::Connecting, None, None).await;
        }
        let _ = session.close(None).await;
    });
    response
}

/// Whether the bot is still enabled with the config this connection was accepted under.
async fn still_current(state: &AppState, bot: &bot::Model) -> bool {
    match crate::runtime::http_bot::load(state, &bot.uuid).await {
        Ok(now) => now.enable && now.adapter_config == bot.adapter_config,
        Err(_) => false,
    }
}
