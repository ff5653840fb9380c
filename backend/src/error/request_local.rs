//! Per-request values that error responses need wherever they are built: the request id
//! and the message language. Set by the request middleware for the request's task.

use std::cell::{Cell, RefCell};

use actix_web::http::header::HeaderValue;

use crate::i18n::Language;

struct RequestLocal {
    /// The id as the response header will carry it (no copy for an id the client sent).
    id: RefCell<Option<HeaderValue>>,
    language: Cell<Language>,
}

tokio::task_local! {
    static REQUEST: RequestLocal;
}

/// Runs `fut` with `id` as the current request id.
pub async fn scope<F: std::future::Future>(id: HeaderValue, fut: F) -> F::Output {
    REQUEST
        .scope(
            RequestLocal {
                id: RefCell::new(Some(id)),
                language: Cell::new(Language::EnUs),
            },
            fut,
        )
        .await
}

/// The current request id and language (empty id outside a request).
pub fn current() -> (String, Language) {
    REQUEST
        .try_with(|r| (text(&r.id.borrow()), r.language.get()))
        .unwrap_or_else(|_| (String::new(), Language::EnUs))
}

/// The current request id (empty outside a request).
pub fn id() -> String {
    REQUEST
        .try_with(|r| text(&r.id.borrow()))
        .unwrap_or_default()
}

/// Takes the id out, for the response header, once the response is built.
pub fn take_id() -> Option<HeaderValue> {
    REQUEST.try_with(|r| r.id.take()).ok().flatten()
}

/// An id is visible ASCII (accepted or generated so): UTF-8, checked the fast way.
fn text(id: &Option<HeaderValue>) -> String {
    id.as_ref()
        .and_then(|v| std::str::from_utf8(v.as_bytes()).ok())
        .unwrap_or_default()
        .to_string()
}

/// Switches error messages of the current request to `language`.
pub fn set_language(language: Language) {
    let _ = REQUEST.try_with(|r| r.language.set(language));
}
