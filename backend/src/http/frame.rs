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

use actix_http::encoding::Encoder;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Service, ServiceRequest, ServiceResponse, Transform};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::Error;
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

impl<S, B> Transform<S, ServiceRequest> for RequestFrame
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<FramedBody<B>>;
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

/// The app's body, maybe gzipped; or the gate's answer.
pub type FramedBody<B> = EitherBody<EitherBody<B, Encoder<B>>>;

type FrameFuture<B> = Pin<Box<dyn Future<Output = Result<ServiceResponse<FramedBody<B>>, Error>>>>;

impl<S, B> Service<ServiceRequest> for RequestFrameService<S>
where
    S: Service<ServiceRequest, Response = ServiceResponse<B>, Error = Error> + 'static,
    B: MessageBody + 'static,
{
    type Response = ServiceResponse<FramedBody<B>>;
    type Error = Error;
    type Future = FrameFuture<B>;

    actix_web::dev::forward_ready!(service);

    fn call(&self, req: ServiceRequest) -> Self::Future {
        let id = request_id::of_request(req.headers());
        let span = tracing::info_span!(
            "request",
            request_id = %id,
            http.method = %req.method(),
            http.path = %req.path(),
        );
        let service = self.service.clone();
        let health = self.health.clone();
        let header = HeaderValue::from_str(&id).ok();
        let gzip = compress::accepts_gzip(&req);
        let in_span = span.clone();
        Box::pin(async move {
            let started = Instant::now();
            // Handler and extractor errors become responses inside this scope, so their
            // bodies carry the id; so does the gate's answer.
            let res = request_local::scope(id, async move {
                if let Some(refused) = db_gate::refuse(&health, req.path()) {
                    return Ok(req.into_response(refused).map_into_right_body());
                }
                let res = service.call(req).await?;
                db_gate::observe(&health, &res);
                Ok::<_, Error>(compress::apply(res, gzip).map_into_left_body())
            })
            .instrument(in_span)
            .await;
            let mut res = res?;
            if let Some(value) = header {
                res.headers_mut()
                    .insert(HeaderName::from_static(request_id::HEADER), value);
            }
            let status = res.status().as_u16();
            span.in_scope(|| {
                let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
                if status >= 500 {
                    tracing::warn!(http.status = status, duration_ms, "request finished");
                } else {
                    tracing::info!(http.status = status, duration_ms, "request finished");
                }
            });
            Ok(res)
        })
    }
}
