//! The one middleware every request passes: its id (accepted or generated, echoed, carried by
//! its tracing span and by error bodies), the database gate ([`super::db_gate`]), compression
//! ([`super::compress`]) and the "request finished" log line. One `Transform` rather than a
//! stack of `from_fn` layers: each of those boxes its service call and its future, and a
//! fixed cost paid on every request (even `/healthz`) is what the bare twin measures against.

use std::future::{ready, Future, Ready};
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use actix_web::body::BoxBody;
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::Error;
use tracing::level_filters::LevelFilter;
use tracing::Instrument;

use super::{compress, db_gate, request_id};
use crate::db_health::DbHealth;
use crate::error::request_local;

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
            service: Rc::new(service),
            health: self.health.clone(),
        }))
    }
}

pub struct RequestFrameService<S> {
    service: Rc<S>,
    health: Arc<DbHealth>,
}

/// The app's answers are boxed bodies already (and a gzipped one is boxed again), so the
/// frame changes no response's type: nothing is moved into a wrapper on the way out.
type FrameFuture = Pin<Box<dyn Future<Output = Result<ServiceResponse<BoxBody>, Error>>>>;

impl<S> Service<ServiceRequest> for RequestFrameService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<BoxBody>, Error = Error> + 'static,
{
    type Response = ServiceResponse<BoxBody>;
    type Error = Error;
    type Future = FrameFuture;

    actix_web::dev::forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let id = request_id::of_request(req.headers());
        let span = tracing::info_span!(
            "request",
            request_id = id.to_str().unwrap_or_default(),
            http.method = %req.method(),
            http.path = %req.path(),
        );
        let service = self.service.clone();
        let health = self.health.clone();
        let gzip = compress::accepts_gzip(&req);
        Box::pin(async move {
            // Only a line that can be written needs the time.
            let started = (LevelFilter::current() >= LevelFilter::WARN).then(Instant::now);
            // Handler and extractor errors become responses inside this scope, so their
            // bodies carry the id; so does the gate's answer.
            let scoped = request_local::scope(id, async move {
                let res = if let Some(refused) = db_gate::refuse(&health, req.path()) {
                    Ok(req.into_response(refused))
                } else {
                    service.call(req).await.map(|res| {
                        db_gate::observe(&health, &res);
                        compress::apply(res, gzip)
                    })
                };
                (res, request_local::take_id())
            });
            let (res, id) = if span.is_disabled() {
                scoped.await
            } else {
                scoped.instrument(span.clone()).await
            };
            let mut res = res?;
            if let Some(id) = id {
                res.headers_mut().insert(request_id::HEADER, id);
            }
            if let Some(started) = started {
                let status = res.status().as_u16();
                span.in_scope(|| {
                    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
                    if status >= 500 {
                        tracing::warn!(http.status = status, duration_ms, "request finished");
                    } else {
                        tracing::info!(http.status = status, duration_ms, "request finished");
                    }
                });
            }
            Ok(res)
        })
    }
}
