//! `web_page_bot`: a chat bubble for any website. The bot's page shows the embed code
//! (`<script src="…/bots/{uuid}/widget.js">`); the script talks to the public, per-bot
//! `POST /bots/{uuid}/chat` (CORS open, rate-limited per visitor address and per bot,
//! optionally guarded by Cloudflare Turnstile), which runs the turn and answers its replies.
//!
//! A visitor may attach an image (a `data:image/…;base64,` URL, within the API body limit):
//! it joins the message chain as an `Image` segment. Replies are text and images (the model's
//! image parts, as a data URL for bytes); the widget shows both. The page has no length limit, so a reply is never
//! split; and there is no platform connection to lose: the visitor's browser posts to us
//! (the one upstream, Turnstile, failing closed).

use std::sync::Mutex;
use std::time::Duration;

use actix_web::{web, HttpRequest, HttpResponse};
use async_trait::async_trait;
use base64::Engine as _;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{Image, Outbox, PartOptions, SendResult};
use crate::bots::adapters::WEB_PAGE_BOT;
use crate::bots::status::{self, LogLevel};
use crate::entities::bot;
use crate::runtime::http_bot;
use crate::runtime::message::{Inbound, Segment, SessionType};
use crate::state::AppState;

const WAIT: Duration = Duration::from_secs(120);
/// Messages per minute a whole bot takes, as a multiple of the per-visitor limit.
const BOT_FACTOR: i64 = 50;

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub bubble_icon: Option<String>,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default = "twenty")]
    pub rate_limit: i64,
    #[serde(default)]
    pub turnstile_site_key: Option<String>,
    #[serde(default)]
    pub turnstile_secret_key: Option<String>,
    #[serde(default = "official")]
    pub api_base_url: String,
}

fn twenty() -> i64 {
    20
}

fn official() -> String {
    "https://challenges.cloudflare.com".into()
}

fn cors(mut resp: actix_web::HttpResponseBuilder) -> actix_web::HttpResponseBuilder {
    resp.insert_header(("access-control-allow-origin", "*"))
        .insert_header(("access-control-allow-methods", "POST, OPTIONS"))
        .insert_header(("access-control-allow-headers", "content-type"))
        .insert_header(("access-control-max-age", "600"));
    resp
}

fn refusal(status: actix_web::http::StatusCode, error: &str) -> HttpResponse {
    cors(HttpResponse::build(status)).json(json!({ "error": error }))
}

async fn widget_bot(state: &AppState, raw: &str) -> Result<(bot::Model, Config), HttpResponse> {
    let not_found = || refusal(actix_web::http::StatusCode::NOT_FOUND, "bot not found");
    let bot = http_bot::load(state, raw).await.map_err(|_| not_found())?;
    if bot.adapter != WEB_PAGE_BOT || !bot.enable {
        return Err(not_found());
    }
    let config = serde_json::from_value(bot.adapter_config.clone()).map_err(|_| {
        refusal(
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
            "bot configuration is incomplete",
        )
    })?;
    Ok((bot, config))
}

/// `OPTIONS /bots/{uuid}/chat`: the CORS preflight.
pub async fn preflight() -> HttpResponse {
    cors(HttpResponse::NoContent()).finish()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChatRequest {
    session_id: String,
    message: String,
    /// An attached image: `data:image/(png|jpeg|gif|webp);base64,…`.
    #[serde(default)]
    image: Option<String>,
    #[serde(default)]
    turnstile_token: Option<String>,
}

/// The base64 of an attached image, when it is a well-formed image data URL.
fn image_data(url: &str) -> Option<String> {
    let (head, data) = url.split_once(',')?;
    let mime = head.strip_prefix("data:")?.strip_suffix(";base64")?;
    if !matches!(
        mime,
        "image/png" | "image/jpeg" | "image/gif" | "image/webp"
    ) {
        return None;
    }
    let data = data.trim();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .ok()?;
    (!bytes.is_empty()).then(|| data.to_string())
}

/// The image type of `bytes` by their signature (PNG when unknown).
fn mime_of(bytes: &[u8]) -> &'static str {
    match bytes {
        [0xff, 0xd8, 0xff, ..] => "image/jpeg",
        [b'G', b'I', b'F', b'8', ..] => "image/gif",
        [b'R', b'I', b'F', b'F', _, _, _, _, b'W', b'E', b'B', b'P', ..] => "image/webp",
        _ => "image/png",
    }
}

/// Replies collected for the answer.
#[derive(Default)]
struct Collected(Mutex<Vec<Value>>);

#[async_trait]
impl Outbox for Collected {
    fn text_limit(&self) -> usize {
        usize::MAX
    }

    async fn text(&self, _: &AppState, text: &str, _: &PartOptions) -> SendResult {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(json!({ "type": "text", "text": text }));
        Ok(None)
    }

    async fn image(&self, _: &AppState, image: &Image, _: &PartOptions) -> SendResult {
        let url = match image {
            Image::Url(u) => u.clone(),
            Image::Bytes(b) => format!(
                "data:{};base64,{}",
                mime_of(b),
                base64::engine::general_purpose::STANDARD.encode(b)
            ),
        };
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(json!({ "type": "image", "url": url }));
        Ok(None)
    }
}

/// Counts a message against the visitor's and the bot's minute; false when over.
async fn within_limits(state: &AppState, bot: &str, visitor: &str, limit: i64) -> bool {
    let minute = Duration::from_secs(60);
    let store = state.store.as_ref();
    let visitor_count = store
        .incr(&format!("wpb-rate:{bot}:{visitor}"), 1, minute)
        .await;
    let bot_count = store.incr(&format!("wpb-rate:{bot}"), 1, minute).await;
    match (visitor_count, bot_count) {
        (Ok(v), Ok(b)) => v <= limit && b <= limit.saturating_mul(BOT_FACTOR),
        _ => true,
    }
}

async fn turnstile_passes(
    state: &AppState,
    config: &Config,
    token: Option<&str>,
    ip: &str,
) -> bool {
    let Some(secret) = config
        .turnstile_secret_key
        .as_deref()
        .filter(|s| !s.is_empty())
    else {
        return true;
    };
    let Some(token) = token.filter(|t| !t.is_empty()) else {
        return false;
    };
    let url = format!(
        "{}/turnstile/v0/siteverify",
        config.api_base_url.trim_end_matches('/')
    );
    let sent = state
        .http
        .post(url)
        .timeout(Duration::from_secs(10))
        .form(&[("secret", secret), ("response", token), ("remoteip", ip)])
        .send()
        .await;
    match sent {
        Ok(resp) => resp
            .json::<Value>()
            .await
            .is_ok_and(|v| v["success"] == Value::Bool(true)),
        Err(_) => false,
    }
}

/// `POST /bots/{uuid}/chat`: one visitor message; answers the replies.
pub async fn chat(
    req: HttpRequest,
    path: web::Path<String>,
    payload: web::Payload,
    state: web::Data<AppState>,
) -> HttpResponse {
    use actix_web::http::StatusCode;
    let (bot, config) = match widget_bot(&state, &path).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let body = match crate::http::read_body(&req, payload, state.settings.api.body_limit).await {
        Ok(body) => body,
        Err(e) if matches!(e.code, crate::error::ErrorCode::PayloadTooLarge) => {
            return refusal(StatusCode::PAYLOAD_TOO_LARGE, "the message is too large")
        }
        Err(_) => return refusal(StatusCode::BAD_REQUEST, "could not read the message"),
    };
    let Ok(request) = serde_json::from_slice::<ChatRequest>(&body) else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "expected {\"session_id\", \"message\"}",
        );
    };
    let session = request.session_id.trim();
    let session_ok = !session.is_empty()
        && session.len() <= 128
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let text = request.message.trim();
    if !session_ok || text.is_empty() || text.chars().count() > 4000 {
        return refusal(
            StatusCode::BAD_REQUEST,
            "session_id must be 1 to 128 letters, digits, - or _; message 1 to 4000 characters",
        );
    }
    let image = match request.image.as_deref().filter(|i| !i.is_empty()) {
        None => None,
        Some(url) => match image_data(url) {
            Some(data) => Some(data),
            None => {
                return refusal(
                    StatusCode::BAD_REQUEST,
                    "image must be a data:image/(png|jpeg|gif|webp);base64, URL",
                )
            }
        },
    };
    let ip = crate::http::client_ip(&req, &state.trusted_proxies)
        .map(|ip| ip.to_string())
        .unwrap_or_default();
    if !within_limits(&state, &bot.uuid, &ip, config.rate_limit.max(1)).await {
        return cors(HttpResponse::TooManyRequests())
            .insert_header(("retry-after", "60"))
            .json(json!({ "error": "too many messages; try again in a minute" }));
    }
    if !turnstile_passes(&state, &config, request.turnstile_token.as_deref(), &ip).await {
        status::log(
            state.store.as_ref(),
            &bot.uuid,
            LogLevel::Warning,
            "refused a widget message: the Turnstile check failed",
        )
        .await;
        return refusal(StatusCode::FORBIDDEN, "the human check failed");
    }
    let mut msg = Inbound::new(
        WEB_PAGE_BOT,
        SessionType::Person,
        session.to_string(),
        session.to_string(),
    );
    msg.segments = vec![Segment::plain(text)];
    if let Some(data) = image {
        msg.segments.push(Segment::image_base64(data));
    }
    msg.message_id = format!("web_{}", uuid::Uuid::new_v4().simple());
    let ws = super::workspace_of(&state, &bot).await;
    let collected = Collected::default();
    let work = super::process(&state, &ws, &bot, msg, &collected, None);
    if tokio::time::timeout(WAIT, work).await.is_err() {
        return refusal(
            StatusCode::GATEWAY_TIMEOUT,
            "timed out waiting for the reply",
        );
    }
    let replies = collected.0.into_inner().unwrap_or_else(|p| p.into_inner());
    cors(HttpResponse::Ok()).json(json!({ "session_id": session, "replies": replies }))
}

/// `GET /bots/{uuid}/widget.js`: the widget, configured for this bot.
pub async fn script(path: web::Path<String>, state: web::Data<AppState>) -> HttpResponse {
    let (bot, config) = match widget_bot(&state, &path).await {
        Ok(found) => found,
        Err(refused) => return refused,
    };
    let settings = json!({
        "endpoint": format!("{}/bots/{}/chat", state.settings.public_url(), bot.uuid),
        "bot": bot.uuid,
        "title": config.title.unwrap_or_else(|| "LangBot".into()),
        "icon": config.bubble_icon.unwrap_or_default(),
        "language": config.language.unwrap_or_else(|| "en_US".into()),
        "turnstile": config.turnstile_site_key.unwrap_or_default(),
    });
    let settings = settings.to_string().replace("</", "<\\/");
    HttpResponse::Ok()
        .content_type("application/javascript; charset=utf-8")
        .insert_header(("cache-control", "public, max-age=300"))
        .insert_header(("access-control-allow-origin", "*"))
        .body(WIDGET.replace("__SETTINGS__", &settings))
}

const WIDGET: &str = r#"(function () {
  var S = __SETTINGS__;
  if (window["langbotWidget_" + S.bot]) return;
  window["langbotWidget_" + S.bot] = true;
  var T = S.language === "zh_Hans"
    ? { placeholder: "输入消息…", send: "发送", error: "发送失败，请稍后重试", attach: "附加图片" }
    : { placeholder: "Type a message…", send: "Send", error: "Could not send; please try again", attach: "Attach an image" };
  var key = "langbot-widget-" + S.bot, sid = null;
  try { sid = localStorage.getItem(key); } catch (e) {}
  if (!sid) {
    sid = "w" + Math.random().toString(36).slice(2) + Date.now().toString(36);
    try { localStorage.setItem(key, sid); } catch (e) {}
  }
  function el(tag, css, text) { var n = document.createElement(tag); if (css) n.style.cssText = css; if (text) n.textContent = text; return n; }
  var bubble = el("button", "position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;background:#2563eb;color:#fff;font-size:24px;cursor:pointer;z-index:2147483000;box-shadow:0 4px 12px rgba(0,0,0,.25)", S.icon ? "" : "💬");
  bubble.setAttribute("aria-label", S.title);
  if (S.icon) { var img = el("img", "width:32px;height:32px"); img.src = S.icon; img.alt = ""; bubble.appendChild(img); }
  var panel = el("div", "position:fixed;right:20px;bottom:88px;width:340px;max-width:calc(100vw - 40px);height:460px;max-height:calc(100vh - 120px);background:#fff;border-radius:12px;box-shadow:0 8px 24px rgba(0,0,0,.2);display:none;flex-direction:column;overflow:hidden;z-index:2147483000;font:14px system-ui,sans-serif;color:#111");
  var head = el("div", "padding:12px 16px;background:#2563eb;color:#fff;font-weight:600", S.title);
  var list = el("div", "flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px");
  var form = el("form", "display:flex;gap:8px;padding:10px;border-top:1px solid #e5e7eb");
  var input = el("input", "flex:1;padding:8px;border:1px solid #d1d5db;border-radius:8px");
  input.placeholder = T.placeholder; input.maxLength = 4000;
  var send = el("button", "padding:8px 12px;border:0;border-radius:8px;background:#2563eb;color:#fff;cursor:pointer", T.send);
  send.type = "submit";
  var attach = el("button", "padding:8px;border:1px solid #d1d5db;border-radius:8px;background:#fff;cursor:pointer", "📎");
  attach.type = "button"; attach.setAttribute("aria-label", T.attach); attach.title = T.attach;
  var file = el("input", "display:none"); file.type = "file"; file.accept = "image/png,image/jpeg,image/gif,image/webp";
  var image = null;
  attach.addEventListener("click", function () { file.click(); });
  file.addEventListener("change", function () {
    var f = file.files && file.files[0];
    if (!f) return;
    var r = new FileReader();
    r.onload = function () { image = r.result; attach.style.background = "rgb(219,234,254)"; };
    r.readAsDataURL(f);
  });
  var human = el("div", "padding:0 10px");
  form.appendChild(attach); form.appendChild(file); form.appendChild(input); form.appendChild(send);
  panel.appendChild(head); panel.appendChild(list); panel.appendChild(human); panel.appendChild(form);
  function say(who, item) {
    var row = el("div", "max-width:85%;padding:8px 10px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word;" +
      (who === "me" ? "align-self:flex-end;background:#2563eb;color:#fff" : "align-self:flex-start;background:#f3f4f6"));
    if (item.type === "image") { var i = el("img", "max-width:100%"); i.src = item.url; i.alt = ""; row.appendChild(i); }
    else row.textContent = item.text;
    list.appendChild(row); list.scrollTop = list.scrollHeight;
  }
  var token = "";
  if (S.turnstile) {
    var ts = document.createElement("script");
    ts.src = "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit";
    ts.onload = function () { window.turnstile.render(human, { sitekey: S.turnstile, callback: function (t) { token = t; } }); };
    document.head.appendChild(ts);
  }
  form.addEventListener("submit", function (ev) {
    ev.preventDefault();
    var text = input.value.trim();
    if (!text) return;
    var img = image; image = null; file.value = ""; attach.style.background = "white";
    input.value = ""; say("me", { type: "text", text: text }); if (img) say("me", { type: "image", url: img }); send.disabled = true;
    fetch(S.endpoint, { method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ session_id: sid, message: text, image: img || undefined, turnstile_token: token || undefined }) })
      .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error || r.status); return b; }); })
      .then(function (b) { (b.replies || []).forEach(function (x) { say("bot", x); }); })
      .catch(function () { say("bot", { type: "text", text: T.error }); })
      .then(function () { send.disabled = false; if (window.turnstile && S.turnstile) { window.turnstile.reset(); token = ""; } });
  });
  bubble.addEventListener("click", function () { var open = panel.style.display === "flex"; panel.style.display = open ? "none" : "flex"; if (!open) input.focus(); });
  function mount() { document.body.appendChild(panel); document.body.appendChild(bubble); }
  if (document.body) mount(); else document.addEventListener("DOMContentLoaded", mount);
})();
"#;
