//! Per-request values that error responses need wherever they are built: the request id
//! and the message language. Set by the request middleware for the request's task.

use std::cell::Cell;

use crate::i18n::Language;

struct RequestLocal {
    id: String,
    language: Cell<Language>,
}

tokio::task_local! {
    static REQUEST: RequestLocal;
}

/// Runs `fut` with `id` as the current request id.
pub async fn scope<F: std::future::Future>(id: String, fut: F) -> F::Output {
    REQUEST
        .scope(
            RequestLocal {
                id,
                language: Cell::new(Language::EnUs),
            },
            fut,
        )
        .await
}

/// The current request id and language (empty id outside a request).
pub fn current() -> (String, Language) {
    REQUEST
        .try_with(|r| (r.id.clone(), r.language.get()))
        .unwrap_or_else(|_| (String::new(), Language::EnUs))
}

/// The current request id (empty outside a request).
pub fn id() -> String {
    REQUEST.try_with(|r| r.id.clone()).unwrap_or_default()
}

/// Switches error messages of the current request to `language`.
pub fn set_language(language: Language) {
    let _ = REQUEST.try_with(|r| r.language.set(language));
}
