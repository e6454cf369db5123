//! The guest's `fetch()`, performed by the host: HTTP/1.1 over a new connection per
//! request (`http:` only: this server links no TLS), to hosts on the allow-list only,
//! following redirects as the request's redirect mode says.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::Request;
use hyper_util::rt::TokioIo;
use kiln::HostError;
use kiln_web::{FetchRequest, FetchResponse, latin1_bytes, latin1_string, network_error};
use std::time::Duration;

/// Redirects followed before a fetch fails (as browsers do).
const MAX_REDIRECTS: usize = 20;
/// The largest response body a fetch reads.
const MAX_RESPONSE_BYTES: usize = 64 << 20;
/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

pub async fn perform(
    mut request: FetchRequest,
    allow_list: &[String],
) -> Result<FetchResponse, HostError> {
    let mut redirected = false;
    for _ in 0..=MAX_REDIRECTS {
        request.check_allowed(allow_list)?;
        let mut response = send(&request).await?;
        let location = response
            .headers
            .iter()
            .find(|(name, _)| name == "location")
            .map(|(_, value)| value.clone());
        let is_redirect = matches!(response.status, 301 | 302 | 303 | 307 | 308);
        match (is_redirect, location, request.redirect.as_str()) {
            (true, Some(_), "error") => {
                return Err(network_error(format!(
                    "fetch to {} was redirected, and its redirect mode is \"error\"",
                    request.url
                )));
            }
            (true, Some(location), "follow") => {
                let next = request
                    .url
                    .join(&location)
                    .map_err(|_| network_error(format!("invalid redirect location: {location}")))?;
                // 303, and 301/302 after POST, continue as GET without a body.
                if response.status == 303
                    || (matches!(response.status, 301 | 302) && request.method == "POST")
                {
                    request.method = "GET".into();
                    request.body.clear();
                    request.headers.retain(|(name, _)| {
                        !matches!(
                            name.as_str(),
                            "content-type" | "content-length" | "content-encoding"
                        )
                    });
                }
                request.url = next;
                redirected = true;
            }
            _ => {
                response.redirected = redirected;
                return Ok(response);
            }
        }
    }
    Err(network_error(format!(
        "fetch to {} was redirected more than {MAX_REDIRECTS} times",
        request.url
    )))
}

/// One request over a new connection.
async fn send(request: &FetchRequest) -> Result<FetchResponse, HostError> {
    let url = &request.url;
    if url.scheme() != "http" {
        return Err(network_error(format!(
            "fetch to {url} failed: only http: URLs can be fetched (kiln serve has no TLS)"
        )));
    }
    let host = url.host_str().unwrap_or_default().to_string();
    let port = url.port_or_known_default().unwrap_or(80);
    let failed = |e: &dyn std::fmt::Display| network_error(format!("fetch to {url} failed: {e}"));
    let stream = tokio::time::timeout(
        CONNECT_TIMEOUT,
        tokio::net::TcpStream::connect((host.trim_matches(['[', ']']), port)),
    )
    .await
    .map_err(|e| failed(&e))?
    .map_err(|e| failed(&e))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| failed(&e))?;
    tokio::task::spawn_local(connection);
    let path = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    };
    let mut builder = Request::builder().method(request.method.as_str()).uri(path);
    let authority = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.clone(),
    };
    if !request.headers.iter().any(|(name, _)| name == "host") {
        builder = builder.header("host", authority);
    }
    for (name, value) in &request.headers {
        builder = builder.header(name.as_str(), latin1_bytes(value).unwrap_or_default());
    }
    let outgoing = builder
        .body(Full::new(Bytes::from(request.body.clone())))
        .map_err(|e| failed(&e))?;
    let response = sender
        .send_request(outgoing)
        .await
        .map_err(|e| failed(&e))?;
    let status = response.status();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str().to_string(), latin1_string(value.as_bytes())))
        .collect();
    let body = Limited::new(response.into_body(), MAX_RESPONSE_BYTES)
        .collect()
        .await
        .map_err(|e| failed(&e))?
        .to_bytes();
    Ok(FetchResponse {
        status: status.as_u16(),
        status_text: status.canonical_reason().unwrap_or_default().to_string(),
        headers,
        body: body.to_vec(),
        url: url.to_string(),
        redirected: false,
    })
}
