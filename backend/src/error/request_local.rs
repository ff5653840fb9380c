//! Per-request values that error responses need wherever they are built: the request id
//! and the message language. Set by the request middleware for the request's task.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use actix_web::http::header::HeaderValue;
use tokio::task::futures::TaskLocalFuture;

use crate::i18n::Language;

/// One request's values. Shared (`Rc`): the task-local is swapped in and out on every poll,
/// and a pointer is cheaper to swap than the values.
pub struct RequestLocal {
    /// The id as the response header will carry it (no copy for an id the client sent).
    id: RefCell<Option<HeaderValue>>,
    language: Cell<Language>,
}

impl RequestLocal {
    pub fn new(id: HeaderValue) -> Rc<Self> {
        Rc::new(Self {
            id: RefCell::new(Some(id)),
            language: Cell::new(Language::EnUs),
        })
    }

    /// The id as text.
    pub fn id_text(&self) -> String {
        text(&self.id.borrow())
    }

    /// Takes the id out, for the response header, once the response is built.
    pub fn take_id(&self) -> Option<HeaderValue> {
        self.id.take()
    }
}

tokio::task_local! {
    static REQUEST: Rc<RequestLocal>;
}

/// A future running with a request's values current.
pub type Scoped<F> = TaskLocalFuture<Rc<RequestLocal>, F>;

/// Runs `fut` with `local` as the current request's values.
pub fn scoped<F: Future>(local: &Rc<RequestLocal>, fut: F) -> Scoped<F> {
    REQUEST.scope(local.clone(), fut)
}

/// Runs `f` with `local` as the current request's values.
pub fn sync_scoped<R>(local: &Rc<RequestLocal>, f: impl FnOnce() -> R) -> R {
    REQUEST.sync_scope(local.clone(), f)
}

/// The current request id and language (empty id outside a request).
pub fn current() -> (String, Language) {
    REQUEST
        .try_with(|r| (r.id_text(), r.language.get()))
        .unwrap_or_else(|_| (String::new(), Language::EnUs))
}

/// The current request id (empty outside a request).
pub fn id() -> String {
    REQUEST.try_with(|r| r.id_text()).unwrap_or_default()
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
