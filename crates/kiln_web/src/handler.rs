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
    /// the absolute URL (`http://host:port/path?query`) as received: the handler's
    /// `request.url` is its serialization (parsed when first read; kept as given if it does
    /// not parse)
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
    /// value, name, value, ...: an array, or one string joining it with "\n") and the body.
    pub(crate) fn from_parts(
        status: f64,
        status_text: String,
        list: HostValue,
        body: HostValue,
    ) -> Option<Self> {
        Some(HandlerResponse {
            status: u16::try_from(status as i64).ok()?,
            status_text,
            headers: header_pairs(list)?,
            body: body_from_guest(body)?,
        })
    }
}

/// A header list from the guest as pairs: the flat list (name, value, name, value, ...) as
/// an array of strings or as one string joining it with "\n" (which no header name or value
/// holds); None when it is neither or has a name without a value.
fn header_pairs(list: HostValue) -> Option<Vec<(String, String)>> {
    match list {
        HostValue::String(joined) if joined.is_empty() => Some(Vec::new()),
        HostValue::String(joined) => {
            let mut parts = joined.split('\n');
            let mut headers = Vec::new();
            while let Some(name) = parts.next() {
                headers.push((name.to_string(), parts.next()?.to_string()));
            }
            Some(headers)
        }
        HostValue::Array(list) => {
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
            Some(headers)
        }
        _ => None,
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

/// Headers as they cross to the guest: one string joining names and values with "\n"
/// (name, value, name, value, ...), which is one allocation on either side of the boundary
/// and is split only if the handler reads them; the flat list of strings when a name or a
/// value holds a "\n" (HTTP allows none).
pub(crate) fn header_list(headers: &[(String, String)]) -> HostValue {
    if headers
        .iter()
        .any(|(name, value)| name.contains('\n') || value.contains('\n'))
    {
        return HostValue::Array(
            headers
                .iter()
                .flat_map(|(k, v)| [HostValue::from(k.as_str()), HostValue::from(v.as_str())])
                .collect(),
        );
    }
    let length = headers.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
    let mut joined = String::with_capacity(length);
    for (i, (name, value)) in headers.iter().enumerate() {
        if i > 0 {
            joined.push('\n');
        }
        joined.push_str(name);
        joined.push('\n');
        joined.push_str(value);
    }
    HostValue::String(joined)
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

    #[test]
    fn headers_cross_as_one_string_unless_a_value_holds_a_line_feed() {
        let pairs = |items: &[(&str, &str)]| -> Vec<(String, String)> {
            items
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(header_list(&[]), HostValue::from(""));
        assert_eq!(
            header_list(&pairs(&[("a", "1"), ("b", ""), ("a", "2")])),
            HostValue::from("a\n1\nb\n\na\n2")
        );
        assert_eq!(
            header_list(&pairs(&[("a", "x\ny")])),
            strings(&["a", "x\ny"])
        );
    }

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

    #[test]
    fn a_header_list_may_come_as_one_string_joined_with_line_feeds() {
        let joined = |text: &str| header_pairs(HostValue::from(text));
        assert_eq!(joined(""), Some(vec![]));
        assert_eq!(
            joined("content-type\napplication/json"),
            Some(vec![("content-type".into(), "application/json".into())])
        );
        assert_eq!(
            joined("a\n\nb\nx"),
            Some(vec![("a".into(), String::new()), ("b".into(), "x".into())])
        );
        assert_eq!(joined("a\n1\nb"), None);
        assert_eq!(header_pairs(HostValue::Number(1.0)), None);
    }
}
