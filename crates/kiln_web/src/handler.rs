//! Serving a handler module: the request handed to the guest's dispatcher and the response
//! it hands back (through the synchronous `respond` host function, so that the response
//! leaves while `ctx.waitUntil` work goes on).

use kiln::{ErrorReport, HostValue, Outcome, Runtime};
use std::cell::RefCell;
use std::rc::Rc;

pub(crate) type ResponseSlot = Rc<RefCell<Option<HandlerResponse>>>;

/// An HTTP request as the host received it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IncomingRequest {
    pub method: String,
    /// the absolute URL (`http://host:port/path?query`)
    pub url: String,
    /// lower-case names, in the order received
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// The response a handler returned.
#[derive(Clone, Debug, PartialEq)]
pub struct HandlerResponse {
    pub status: u16,
    pub status_text: String,
    /// lower-case names, in the handler's order (`set-cookie` values separate)
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HandlerResponse {
    /// The parts `respond` receives: the status, the status text, the header list (name,
    /// value, name, value, ...) and the body.
    pub(crate) fn from_parts(
        status: f64,
        status_text: String,
        list: HostValue,
        body: HostValue,
    ) -> Option<Self> {
        let HostValue::Array(list) = list else {
            return None;
        };
        let mut headers = Vec::with_capacity(list.len() / 2);
        let mut list = list.into_iter();
        while let Some(name) = list.next() {
            match (name, list.next()) {
                (HostValue::String(name), Some(HostValue::String(value))) => {
                    headers.push((name, value))
                }
                _ => return None,
            }
        }
        Some(HandlerResponse {
            status: u16::try_from(status as i64).ok()?,
            status_text,
            headers,
            body: body_from_guest(body)?,
        })
    }
}

/// A body as it crosses to the guest: null when empty, text when it is UTF-8 (so `text()`
/// and `json()` decode nothing), else bytes (a Uint8Array).
pub(crate) fn body_to_guest(body: Vec<u8>) -> HostValue {
    if body.is_empty() {
        return HostValue::Null;
    }
    match String::from_utf8(body) {
        Ok(text) => HostValue::String(text),
        Err(e) => HostValue::Bytes(e.into_bytes()),
    }
}

/// A body from the guest: null, text, or bytes.
pub(crate) fn body_from_guest(body: HostValue) -> Option<Vec<u8>> {
    match body {
        HostValue::Null => Some(Vec::new()),
        HostValue::String(s) => Some(s.into_bytes()),
        HostValue::Bytes(b) => Some(b),
        _ => None,
    }
}

/// Headers as the guest's flat list: name, value, name, value, ...
pub(crate) fn header_list(headers: &[(String, String)]) -> HostValue {
    HostValue::Array(
        headers
            .iter()
            .flat_map(|(k, v)| [HostValue::from(k.as_str()), HostValue::from(v.as_str())])
            .collect(),
    )
}

/// The web platform installed in one runtime: dispatches requests to its handler.
pub struct Web {
    response: ResponseSlot,
}

impl Web {
    pub(crate) fn new(response: ResponseSlot) -> Self {
        Web { response }
    }

    /// Start an execution of the handler's `fetch(request, env, ctx)` for `request` (the
    /// runtime must have evaluated [`crate::ENTRY`]). The handler's response is available
    /// from [`Web::take_response`] as soon as it is ready, which may be before the
    /// execution completes (`ctx.waitUntil`); the embedder answers the execution's
    /// [`kiln::PendingCall`]s (timers, `fetch`, see [`crate::WebCall`]) with
    /// [`Runtime::resume`] until it completes.
    pub fn dispatch(
        &self,
        runtime: &mut Runtime,
        request: IncomingRequest,
    ) -> Result<Outcome, ErrorReport> {
        self.response.borrow_mut().take();
        runtime.call(
            "__kiln_dispatch",
            &[
                HostValue::String(request.method),
                HostValue::String(request.url),
                header_list(&request.headers),
                body_to_guest(request.body),
            ],
        )
    }

    /// The response of the current execution, once the handler gave it (taken once).
    pub fn take_response(&self) -> Option<HandlerResponse> {
        self.response.borrow_mut().take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> HostValue {
        HostValue::Array(items.iter().map(|s| HostValue::from(*s)).collect())
    }

    #[test]
    fn response_parts_pair_the_header_list_and_refuse_what_is_malformed() {
        let body = HostValue::String("hi".into());
        let response =
            HandlerResponse::from_parts(201.0, "Made".into(), strings(&["a", "", "b", "x"]), body);
        assert_eq!(
            response,
            Some(HandlerResponse {
                status: 201,
                status_text: "Made".into(),
                headers: vec![("a".into(), String::new()), ("b".into(), "x".into())],
                body: b"hi".to_vec(),
            })
        );
        let odd =
            HandlerResponse::from_parts(200.0, String::new(), strings(&["a"]), HostValue::Null);
        assert_eq!(odd, None);
        let status =
            HandlerResponse::from_parts(70000.0, String::new(), strings(&[]), HostValue::Null);
        assert_eq!(status, None);
    }
}
