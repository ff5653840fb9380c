//! The one middleware every request passes: its id (accepted or generated, echoed, carried by
//! its tracing span and by error bodies), the database gate ([`super::db_gate`]), compression
//! ([`super::compress`]) and the "request finished" log line. One `Transform` rather than a
//! stack of `from_fn` layers: each of those boxes its service call and its future, and a
//! fixed cost paid on every request (even `/healthz`) is what the bare twin measures against.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use actix_web::body::BoxBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::Error;
use futures_util::future::Either;
use pin_project_lite::pin_project;
use tracing::instrument::Instrumented;
use tracing::level_filters::LevelFilter;
use tracing::Instrument;

use super::{compress, db_gate, request_id};
use crate::db_health::DbHealth;
use crate::error::request_local::{self, RequestLocal, Scoped};

/// The middleware; `health` is the process's view of its database.
pub struct RequestFrame {
    health: Arc<DbHealth>,
}

impl RequestFrame {
    pub fn new(health: Arc<DbHealth>) -> Self {
        Self { health }
    }
}

impl<S> Transform<S, ServiceRequest> for RequestFrame
where
    S: Service<ServiceRequest, Response = ServiceResponse<BoxBody>, Error = Error> + 'static,
{
    type Response = ServiceResponse<BoxBody>;
    type Error = Error;
    type Transform = RequestFrameService<S>;
    type InitError = ();
    type Future = Ready<Result<Self::Transform, ()>>;

    fn new_transform(&self, service: S) -> Self::Future {
        ready(Ok(RequestFrameService {
            service,
            health: self.health.clone(),
        }))
    }
}

pub struct RequestFrameService<S> {
    service: S,
    health: Arc<DbHealth>,
}

/// The app's answers are boxed bodies already (and a gzipped one is boxed again), so the
/// frame changes no response's type: nothing is moved into a wrapper on the way out.
type Response = ServiceResponse<BoxBody>;

/// The gate's answer, or the app's.
type Gated<F> = Either<Ready<Result<Response, Error>>, F>;

impl<S> Service<ServiceRequest> for RequestFrameService<S>
where
    S: Service<ServiceRequest, Response = Response, Error = Error> + 'static,
{
    type Response = Response;
    type Error = Error;
    type Future = FrameFuture<S::Future>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let local = RequestLocal::new(request_id::of_request(req.headers()));
        // Its fields are only computed when the span is recorded.
        let span = tracing::info_span!(
            "request",
            request_id = %local.id_text(),
            http.method = %req.method(),
            http.path = %req.path(),
        );
        let gzip = compress::accepts_gzip(&req);
        // The gate's answer is an error body: it is built with the request's id current.
        let refused =
            request_local::sync_scoped(&local, || db_gate::refuse(&self.health, req.path()));
        let inner = match refused {
            Some(refused) => Either::Left(ready(Ok(req.into_response(refused)))),
            None => Either::Right(self.service.call(req)),
        };
        FrameFuture {
            // Handler and extractor errors become responses inside this scope, so their
            // bodies carry the id.
            inner: request_local::scoped(&local, inner).instrument(span),
            local,
            health: self.health.clone(),
            gzip,
            // Only a line that can be written needs the time.
            started: (LevelFilter::current() >= LevelFilter::WARN).then(Instant::now),
        }
    }
}

pin_project! {
    /// A request in the frame: written by hand rather than as an `async` block, so it is not
    /// boxed, and the app's future is polled in place.
    pub struct FrameFuture<F> {
        #[pin]
        inner: Instrumented<Scoped<Gated<F>>>,
        local: Rc<RequestLocal>,
        health: Arc<DbHealth>,
        gzip: bool,
        started: Option<Instant>,
    }
}

impl<F> Future for FrameFuture<F>
where
    F: Future<Output = Result<Response, Error>>,
{
    type Output = Result<Response, Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let mut inner = this.inner;
        let res = match inner.as_mut().poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(res) => res?,
        };
        db_gate::observe(this.health, &res);
        let mut res = compress::apply(res, *this.gzip);
        if let Some(id) = this.local.take_id() {
            res.headers_mut().insert(request_id::HEADER, id);
        }
        if let Some(started) = this.started {
            let status = res.status().as_u16();
            inner.span().in_scope(|| {
                // Whole microseconds, so a log line reads 5.138 rather than 5.1379019999999995.
                let duration_ms = (started.elapsed().as_secs_f64() * 1e6).round() / 1e3;
                if status >= 500 {
                    tracing::warn!(http.status = status, duration_ms, "request finished");
                } else {
                    tracing::info!(http.status = status, duration_ms, "request finished");
                }
            });
        }
        Poll::Ready(Ok(res))
    }
}
