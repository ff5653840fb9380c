//! The public ingress of every adapter, under `/bots/{bot_uuid}` as LangBot serves it: one
//! URL per bot, whatever its platform — http_bot's signed messages, Telegram webhook
//! updates, Slack and Lark event callbacks (POST), the OneBot reverse WebSocket (GET
//! upgrade), and the web chat widget's script and chat endpoint. Any replica answers.

use actix_web::{web, HttpRequest, HttpResponse};

use crate::bots::adapters as names;
use crate::runtime::http_bot;
use crate::state::AppState;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.route("/bots/{bot_uuid}", web::post().to(post))
        .route("/bots/{bot_uuid}", web::get().to(get))
        .route("/bots/{bot_uuid}/sync", web::post().to(http_bot::sync))
        .route("/bots/{bot_uuid}/reset", web::post().to(http_bot::reset))
        .route(
            "/bots/{bot_uuid}/widget.js",
            web::get().to(super::web_page::script),
        )
        .route(
            "/bots/{bot_uuid}/chat",
            web::post().to(super::web_page::chat),
        )
        .route(
            "/bots/{bot_uuid}/chat",
            web::method(actix_web::http::Method::OPTIONS).to(super::web_page::preflight),
        );
}

/// Reads a webhook body within the body limit.
async fn body_of(
    req: &HttpRequest,
    payload: web::Payload,
    state: &AppState,
) -> Result<web::BytesMut, HttpResponse> {
    crate::http::read_body(req, payload, state.settings.api.body_limit)
        .await
        .map_err(|e| match e.code {
            crate::error::ErrorCode::PayloadTooLarge => HttpResponse::PayloadTooLarge().finish(),
            _ => HttpResponse::BadRequest().finish(),
        })
}

/// `POST /bots/{bot_uuid}`: the bot's adapter takes it.
async fn post(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let bot = match http_bot::load(&state, &path).await {
        Ok(bot) => bot,
        Err(refused) => return refused,
    };
    if bot.adapter == names::HTTP_BOT {
        return http_bot::inbound(req, bot, payload, state).await;
    }
    if !bot.enable {
        return HttpResponse::Forbidden()
            .json(serde_json::json!({ "code": 40301, "msg": "bot is disabled", "data": null }));
    }
    let body = match body_of(&req, payload, &state).await {
        Ok(body) => body,
        Err(refused) => return refused,
    };
    match bot.adapter.as_str() {
        names::TELEGRAM => super::telegram::webhook(&state, &req, bot, &body).await,
        names::SLACK => super::slack::events(&state, &req, bot, &body).await,
        names::LARK => super::lark::events(&state, &req, bot, &body).await,
        _ => http_bot::bot_not_found(),
    }
}

/// `GET /bots/{bot_uuid}`: a OneBot v11 implementation connecting (reverse WebSocket).
async fn get(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    let bot = match http_bot::load(&state, &path).await {
        Ok(bot) => bot,
        Err(refused) => return refused,
    };
    if bot.adapter != names::ONEBOT_V11 || !bot.enable {
        return http_bot::bot_not_found();
    }
    super::onebot::reverse::accept(state.into_inner(), req, payload, bot).await
}
