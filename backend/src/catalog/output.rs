//! What an operation answers with, and so which face serves it: a JSON value in the
//! success envelope (every `Serialize + ToSchema` type), a server-sent event stream, a file
//! download streamed page by page, or a WebSocket. Operations build these values without
//! touching actix; the catalog turns them into responses and documents them.

use std::convert::Infallible;
use std::future::Future;
use std::time::Duration;

use actix_web::http::header::ContentEncoding;
use actix_web::HttpResponse;
use actix_web_lab::sse;
use bytes::Bytes;
use futures_util::future::LocalBoxFuture;
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt};
use serde::Serialize;
use serde_json::Value;
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, RefOr, ResponseBuilder, Schema};
use utoipa::ToSchema;

use super::openapi::SchemaSet;
use super::router::Handler;
use super::socket::Socket;
use super::{http, socket, Operation};
use crate::error::{ApiError, ApiResult};

/// The kinds of answer the catalog knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    Json,
    EventStream,
    Download,
    Image,
    WebSocket,
}

/// An operation's answer.
pub trait Output: Send + Sized + 'static {
    const KIND: OutputKind;

    /// The handler serving an operation with this output.
    fn handler<O: Operation<Output = Self>>() -> Handler {
        http::handler::<O>()
    }

    /// The documented success response: status and response object.
    fn document(schemas: &mut SchemaSet) -> (u16, utoipa::openapi::Response);

    /// The HTTP response.
    fn respond(self) -> HttpResponse;

    /// The JSON value MCP returns; only JSON outputs have one.
    fn into_json(self) -> ApiResult<Value> {
        Err(ApiError::internal(anyhow::anyhow!(
            "a {:?} output has no JSON form",
            Self::KIND
        )))
    }
}

/// The success envelope (SPEC §4).
#[derive(Serialize)]
pub struct Envelope<T> {
    pub code: i32,
    pub msg: &'static str,
    pub data: T,
}

impl<T: Serialize + ToSchema + Send + 'static> Output for T {
    const KIND: OutputKind = OutputKind::Json;

    fn document(schemas: &mut SchemaSet) -> (u16, utoipa::openapi::Response) {
        let data: RefOr<Schema> = if T::name() == "Null" {
            T::schema()
        } else {
            schemas.reference::<T>()
        };
        let envelope = ObjectBuilder::new()
            .property(
                "code",
                ObjectBuilder::new()
                    .schema_type(Type::Integer)
                    .enum_values(Some([0])),
            )
            .property("msg", ObjectBuilder::new().schema_type(Type::String))
            .property("data", data)
            .required("code")
            .required("msg")
            .required("data");
        let response = ResponseBuilder::new()
            .description("Success")
            .content(
                "application/json",
                ContentBuilder::new().schema(Some(envelope)).build(),
            )
            .build();
        (200, response)
    }

    fn respond(self) -> HttpResponse {
        HttpResponse::Ok().json(Envelope {
            code: 0,
            msg: "ok",
            data: self,
        })
    }

    fn into_json(self) -> ApiResult<Value> {
        serde_json::to_value(self).map_err(ApiError::internal)
    }
}

/// A JSON answer serialized ahead of time, for one that is the same for many callers
/// (system/info before login): documented and answered as `T` in its envelope, sent as the
/// stored bytes without serializing again.
pub struct Prepared<T> {
    envelope: Bytes,
    of: std::marker::PhantomData<fn() -> T>,
}

impl<T: Serialize> Prepared<T> {
    pub fn new(data: &T) -> ApiResult<Self> {
        let envelope = serde_json::to_vec(&Envelope {
            code: 0,
            msg: "ok",
            data,
        })
        .map_err(ApiError::internal)?;
        Ok(Self {
            envelope: envelope.into(),
            of: std::marker::PhantomData,
        })
    }
}

impl<T> Clone for Prepared<T> {
    fn clone(&self) -> Self {
        Self {
            envelope: self.envelope.clone(),
            of: std::marker::PhantomData,
        }
    }
}

impl<T: Serialize + ToSchema + Send + 'static> Output for Prepared<T> {
    const KIND: OutputKind = OutputKind::Json;

    fn document(schemas: &mut SchemaSet) -> (u16, utoipa::openapi::Response) {
        <T as Output>::document(schemas)
    }

    fn respond(self) -> HttpResponse {
        HttpResponse::Ok()
            .content_type(actix_web::http::header::ContentType::json())
            .body(self.envelope)
    }

    fn into_json(self) -> ApiResult<Value> {
        let mut envelope: Value =
            serde_json::from_slice(&self.envelope).map_err(ApiError::internal)?;
        Ok(envelope
            .get_mut("data")
            .map(Value::take)
            .unwrap_or_default())
    }
}

fn text_schema() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::String)
}

/// Server-sent events: each item (a JSON text) is sent as one `data:` frame. The stream
/// decides its own heartbeats and end.
pub struct EventStream {
    events: BoxStream<'static, String>,
    retry: Option<Duration>,
}

impl EventStream {
    pub fn new(events: impl Stream<Item = String> + Send + 'static) -> Self {
        Self {
            events: events.boxed(),
            retry: None,
        }
    }

    /// Asks the client to reconnect after `retry` when the stream ends or drops.
    pub fn retry(mut self, retry: Duration) -> Self {
        self.retry = Some(retry);
        self
    }
}

impl Output for EventStream {
    const KIND: OutputKind = OutputKind::EventStream;

    fn document(_: &mut SchemaSet) -> (u16, utoipa::openapi::Response) {
        let response = ResponseBuilder::new()
            .description("A `text/event-stream`: one JSON object per `data:` frame")
            .content(
                "text/event-stream",
                ContentBuilder::new().schema(Some(text_schema())).build(),
            )
            .build();
        (200, response)
    }

    fn respond(self) -> HttpResponse {
        let frames = self
            .events
            .map(|text| Ok::<_, Infallible>(sse::Event::Data(sse::Data::new(text))));
        let mut body = sse::Sse::from_stream(frames);
        if let Some(retry) = self.retry {
            body = body.with_retry_duration(retry);
        }
        HttpResponse::Ok()
            .content_type("text/event-stream")
            .insert_header(("cache-control", "no-cache, no-store"))
            // Proxies (nginx) must pass frames on as they come.
            .insert_header(("x-accel-buffering", "no"))
            // Compression would hold frames back.
            .insert_header(ContentEncoding::Identity)
            .body(body)
    }
}

/// A file download whose body is produced page by page, so memory stays flat whatever
/// its size. A failure after the first bytes ends the body early (and is logged).
pub struct Download {
    content_type: &'static str,
    filename: String,
    body: BoxStream<'static, ApiResult<Bytes>>,
}

/// The formats a download may come in.
pub const DOWNLOAD_TYPES: &[&str] = &["text/csv", "application/x-ndjson"];

impl Download {
    pub fn new(
        content_type: &'static str,
        filename: impl Into<String>,
        body: impl Stream<Item = ApiResult<Bytes>> + Send + 'static,
    ) -> Self {
        Self {
            content_type,
            filename: filename.into(),
            body: body.boxed(),
        }
    }
}

impl Output for Download {
    const KIND: OutputKind = OutputKind::Download;

    fn document(_: &mut SchemaSet) -> (u16, utoipa::openapi::Response) {
        let mut response =
            ResponseBuilder::new().description("The file, as an attachment, streamed");
        for content_type in DOWNLOAD_TYPES {
            response = response.content(
                *content_type,
                ContentBuilder::new().schema(Some(text_schema())).build(),
            );
        }
        (200, response.build())
    }

    fn respond(self) -> HttpResponse {
        let body = self.body.map(|chunk| {
            chunk.map_err(|e| {
                tracing::error!(error = %e, "download failed after it started");
                actix_web::error::ErrorInternalServerError(e.code.as_str())
            })
        });
        HttpResponse::Ok()
            .content_type(format!("{}; charset=utf-8", self.content_type))
            .insert_header((
                "content-disposition",
                format!("attachment; filename=\"{}\"", self.filename),
            ))
            // Streamed bodies are not compressed: each page goes out as it is written.
            .insert_header(ContentEncoding::Identity)
            .streaming(body)
    }
}

/// An image shown inline (an `<img src>` target: no envelope, cached for a day).
pub struct Image {
    content_type: &'static str,
    body: Bytes,
}

impl Image {
    pub fn svg(body: impl Into<Bytes>) -> Self {
        Self::new("image/svg+xml", body)
    }

    /// An image of another type (`image/png`, …).
    pub fn new(content_type: &'static str, body: impl Into<Bytes>) -> Self {
        Self {
            content_type,
            body: body.into(),
        }
    }
}

impl Output for Image {
    const KIND: OutputKind = OutputKind::Image;

    fn document(_: &mut SchemaSet) -> (u16, utoipa::openapi::Response) {
        let response = ResponseBuilder::new()
            .description("The image")
            .content(
                "image/*",
                ContentBuilder::new().schema(Some(text_schema())).build(),
            )
            .build();
        (200, response)
    }

    fn respond(self) -> HttpResponse {
        HttpResponse::Ok()
            .content_type(self.content_type)
            .insert_header(("cache-control", "public, max-age=86400"))
            .body(self.body)
    }
}

/// A WebSocket: the catalog upgrades the connection, authorizes the caller (from the
/// headers, `?token=` or a first `authenticate` frame), runs the operation, and hands the
/// socket to what it returned.
pub struct WebSocket {
    pub(super) session: Box<dyn FnOnce(Socket) -> LocalBoxFuture<'static, ()> + Send>,
}

impl WebSocket {
    pub fn new<F, Fut>(session: F) -> Self
    where
        F: FnOnce(Socket) -> Fut + Send + 'static,
        Fut: Future<Output = ()> + 'static,
    {
        Self {
            session: Box::new(move |socket| Box::pin(session(socket))),
        }
    }
}

impl Output for WebSocket {
    const KIND: OutputKind = OutputKind::WebSocket;

    fn handler<O: Operation<Output = Self>>() -> Handler {
        socket::handler::<O>()
    }

    fn document(_: &mut SchemaSet) -> (u16, utoipa::openapi::Response) {
        let response = ResponseBuilder::new()
            .description(
                "Switching Protocols: a WebSocket of JSON text frames. Authenticate with the \
                 session token in `Authorization`, `?token=`, or a first \
                 `{\"type\":\"authenticate\",\"token\":…}` frame.",
            )
            .build();
        (101, response)
    }

    fn respond(self) -> HttpResponse {
        // The socket face never calls this: it upgrades the connection itself.
        HttpResponse::BadRequest().finish()
    }
}
