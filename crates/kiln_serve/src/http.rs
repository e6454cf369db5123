//! A worker thread's HTTP side: accepting connections on the shared socket, hyper's
//! HTTP/1.1 (keep-alive), turning requests and replies into the web platform's terms, and
//! draining on shutdown.

use crate::worker::{Reply, Worker};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{CONTENT_LENGTH, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use kiln_web::{HeaderList, latin1_bytes};
use std::cell::Cell;
use std::convert::Infallible;
use std::rc::Rc;
use std::time::Duration;
use tokio::sync::{Notify, watch};

/// Run a worker on this thread until `stopped` turns true, then let open connections
/// finish their requests for at most `drain`.
pub fn serve(
    worker: Worker,
    socket: std::net::TcpListener,
    stopped: watch::Receiver<bool>,
    drain: Duration,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("kiln serve: a worker cannot start its event loop: {e}");
            return;
        }
    };
    let local = tokio::task::LocalSet::new();
    local.block_on(
        &runtime,
        accept_loop(Rc::new(worker), socket, stopped, drain),
    );
}

/// The connections a worker has open, so shutdown can wait for them.
#[derive(Default)]
struct Open {
    count: Cell<usize>,
    closed: Notify,
}

async fn accept_loop(
    worker: Rc<Worker>,
    socket: std::net::TcpListener,
    stopped: watch::Receiver<bool>,
    drain: Duration,
) {
    let listener = match tokio::net::TcpListener::from_std(socket) {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("kiln serve: a worker cannot use the socket: {e}");
            return;
        }
    };
    let open = Rc::new(Open::default());
    let mut stop = stopped.clone();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((stream, _peer)) = accepted else { continue };
                let _ = stream.set_nodelay(true);
                open.count.set(open.count.get() + 1);
                let connection = serve_connection(worker.clone(), stream, stopped.clone());
                let open = open.clone();
                tokio::task::spawn_local(async move {
                    connection.await;
                    open.count.set(open.count.get() - 1);
                    open.closed.notify_waiters();
                });
            }
            _ = stop.wait_for(|stop| *stop) => break,
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(drain, async {
        while open.count.get() > 0 {
            open.closed.notified().await;
        }
    })
    .await;
}

async fn serve_connection(
    worker: Rc<Worker>,
    stream: tokio::net::TcpStream,
    mut stopped: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |request| {
        let worker = worker.clone();
        async move { Ok::<_, Infallible>(respond(&worker, request).await) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .keep_alive(true)
        // The body is copied after the head and both go out in one send(2): the kernel
        // takes less time for it than for a writev(2) of the two, more than the copy costs.
        .writev(false)
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(30))
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    tokio::select! {
        _ = connection.as_mut() => {}
        _ = stopped.wait_for(|stop| *stop) => {
            // Finish the request in progress, if any, then close.
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        }
    }
}

/// The response to one request.
async fn respond(worker: &Rc<Worker>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let max_body = worker.max_body();
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > max_body as u64) {
        return status_only(StatusCode::PAYLOAD_TOO_LARGE);
    }
    let (parts, body) = request.into_parts();
    let body = match Limited::new(body, max_body).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            return if error.is::<http_body_util::LengthLimitError>() {
                status_only(StatusCode::PAYLOAD_TOO_LARGE)
            } else {
                status_only(StatusCode::BAD_REQUEST)
            };
        }
    };
    let path = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let url = match parts.headers.get(HOST).and_then(|h| h.to_str().ok()) {
        Some(host) if !host.is_empty() => ["http://", host, path].concat(),
        _ => format!("http://{}{path}", worker.local_address()),
    };
    let bytes = parts
        .headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len() + 2)
        .sum();
    let mut headers = HeaderList::with_capacity(bytes);
    for (name, value) in &parts.headers {
        headers.push_bytes(name.as_str(), value.as_bytes());
    }
    let method = parts.method.as_str().to_string();
    // The request's header map, emptied, holds the response's headers: its room is reused,
    // and hyper keeps the response's map to parse the next request on the connection into.
    let mut map = parts.headers;
    map.clear();
    match worker.handle(method, url, headers, Vec::from(body)).await {
        Reply::Response(response) => into_hyper(response, map),
        Reply::Failure(status) => {
            status_only(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        }
    }
}

fn status_only(status: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = status;
    response
}

/// The handler's response for hyper, its headers put in `headers` (an empty map). They were
/// validated by `Headers` (token names, no CR/LF/NUL, bytes only), so a refusal here means a
/// bug: that header is left out.
fn into_hyper(
    response: kiln_web::HandlerResponse,
    mut headers: HeaderMap,
) -> Response<Full<Bytes>> {
    headers.reserve(response.headers.len());
    for (name, value) in response.headers.iter() {
        if let (Ok(name), Some(value)) =
            (HeaderName::from_bytes(name.as_bytes()), header_value(value))
        {
            headers.append(name, value);
        }
    }
    let mut out = Response::new(Full::new(Bytes::from(response.body)));
    *out.status_mut() =
        StatusCode::from_u16(response.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    *out.headers_mut() = headers;
    if !response.status_text.is_empty()
        && let Some(reason) = latin1_bytes(&response.status_text)
            .and_then(|text| hyper::ext::ReasonPhrase::try_from(text).ok())
    {
        out.extensions_mut().insert(reason);
    }
    out
}

/// A header value from its text (a byte string: each character one byte); the Content-Types
/// `Response` gives bodies are prebuilt.
fn header_value(text: &str) -> Option<HeaderValue> {
    match text {
        "application/json" => Some(HeaderValue::from_static("application/json")),
        "text/plain;charset=UTF-8" => Some(HeaderValue::from_static("text/plain;charset=UTF-8")),
        _ if text.is_ascii() => HeaderValue::from_str(text).ok(),
        _ => latin1_bytes(text).and_then(|bytes| HeaderValue::from_bytes(&bytes).ok()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_header_values_are_bytes_whether_ascii_or_latin_1() {
        let response = kiln_web::HandlerResponse {
            status: 200,
            status_text: String::new(),
            headers: kiln_web::HeaderList::from(
                [
                    ("content-type".into(), "application/json".into()),
                    ("x-latin-1".into(), "caf\u{e9}".into()),
                    ("x-refused".into(), "a\u{7f}".into()),
                    ("x-text".into(), "text/plain;charset=UTF-8".into()),
                    ("x-ascii".into(), "a b".into()),
                ]
                .as_slice(),
            ),
            body: b"{}".to_vec(),
        };
        let mut room = HeaderMap::new();
        room.insert(HOST, HeaderValue::from_static("a.example"));
        room.clear();
        let out = into_hyper(response, room);
        let headers = out.headers();
        assert_eq!(headers["content-type"].as_bytes(), b"application/json");
        assert_eq!(headers["x-latin-1"].as_bytes(), b"caf\xe9");
        assert_eq!(headers["x-text"].as_bytes(), b"text/plain;charset=UTF-8");
        assert_eq!(headers["x-ascii"].as_bytes(), b"a b");
        assert_eq!(headers.len(), 4);
        // (DEL is not a header value byte; Headers never lets it through.)
        assert!(!headers.contains_key("x-refused"));
    }
}
