//! Serving a handler module: the request handed to the guest's dispatcher and the response
//! it hands back (through the synchronous `respond` host function, so that the response
//! leaves while `ctx.waitUntil` work goes on).

use crate::codec::{latin1_string, push_latin1};
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
    pub headers: HeaderList,
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
            headers: HeaderList::from_guest(list)?,
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

/// A header list in the form it crosses to the guest, built one header at a time: the
/// names and values joined with "\n" (name, value, name, value, ...), one string on either
/// side of the boundary that the guest splits only if the handler reads the headers; or the
/// flat list of strings once a name or a value holds a "\n" (HTTP carries none).
///
/// A server fills one from the request it parsed without a pair of strings per header:
///
/// ```
/// let mut headers = kiln_web::HeaderList::with_capacity(64);
/// headers.push_bytes("host", b"example.com");
/// headers.push_bytes("x-name", b"caf\xe9"); // each byte is one character
/// headers.push("accept", "*/*");
/// assert_eq!(headers.len(), 3);
/// ```
#[derive(Clone, Debug, Default)]
pub struct HeaderList {
    joined: String,
    /// the headers in `joined`
    len: usize,
    /// the flat list (with the headers of `joined` first), once a name or value held a "\n"
    flat: Option<Vec<HostValue>>,
}

impl HeaderList {
    /// An empty list with room for `bytes` bytes of names and values (and one separator
    /// after each).
    pub fn with_capacity(bytes: usize) -> Self {
        HeaderList {
            joined: String::with_capacity(bytes),
            len: 0,
            flat: None,
        }
    }

    /// The number of headers.
    pub fn len(&self) -> usize {
        match &self.flat {
            Some(flat) => flat.len() / 2,
            None => self.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Append a header: its lower-case name and its value.
    pub fn push(&mut self, name: &str, value: &str) {
        if self.flat.is_none() && !name.contains('\n') && !value.contains('\n') {
            self.start_header(name);
            self.joined.push_str(value);
        } else {
            let flat = self.flat_list();
            flat.push(HostValue::from(name));
            flat.push(HostValue::from(value));
        }
    }

    /// Append a header whose value is a byte string, as HTTP carries it: each byte is one
    /// character (U+0000 to U+00FF), as a WebIDL `ByteString` is.
    pub fn push_bytes(&mut self, name: &str, value: &[u8]) {
        if self.flat.is_none() && !name.contains('\n') && !value.contains(&b'\n') {
            self.start_header(name);
            push_latin1(&mut self.joined, value);
        } else {
            let flat = self.flat_list();
            flat.push(HostValue::from(name));
            flat.push(HostValue::String(latin1_string(value)));
        }
    }

    /// The separator and the name of a header appended to `joined`.
    fn start_header(&mut self, name: &str) {
        if self.len > 0 {
            self.joined.push('\n');
        }
        self.joined.push_str(name);
        self.joined.push('\n');
        self.len += 1;
    }

    /// The flat list, made from `joined` the first time (whose parts hold no "\n").
    fn flat_list(&mut self) -> &mut Vec<HostValue> {
        let (joined, len) = (&self.joined, self.len);
        self.flat.get_or_insert_with(|| {
            if len == 0 {
                Vec::new()
            } else {
                joined.split('\n').map(HostValue::from).collect()
            }
        })
    }

    /// The headers, in order.
    pub fn iter(&self) -> HeaderIter<'_> {
        match &self.flat {
            Some(flat) => HeaderIter::Flat(flat.chunks_exact(2)),
            None if self.len == 0 => HeaderIter::Flat([].chunks_exact(2)),
            None => HeaderIter::Joined(self.joined.split('\n')),
        }
    }

    /// A header list from the guest: the flat list (name, value, name, value, ...) as an
    /// array of strings or as one string joining it with "\n" (which no header name or
    /// value holds); None when it is neither or has a name without a value.
    pub(crate) fn from_guest(list: HostValue) -> Option<Self> {
        match list {
            HostValue::String(joined) if joined.is_empty() => Some(HeaderList::default()),
            HostValue::String(joined) => {
                let parts = joined.bytes().filter(|&b| b == b'\n').count() + 1;
                (parts % 2 == 0).then_some(HeaderList {
                    joined,
                    len: parts / 2,
                    flat: None,
                })
            }
            HostValue::Array(flat)
                if flat.len() % 2 == 0
                    && flat.iter().all(|item| matches!(item, HostValue::String(_))) =>
            {
                Some(HeaderList {
                    joined: String::new(),
                    len: 0,
                    flat: Some(flat),
                })
            }
            _ => None,
        }
    }

    /// The list as the guest receives it.
    pub(crate) fn into_guest(self) -> HostValue {
        match self.flat {
            Some(flat) => HostValue::Array(flat),
            None => HostValue::String(self.joined),
        }
    }
}

/// Lists are equal when they hold the same headers in the same order, in either form.
impl PartialEq for HeaderList {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for HeaderList {}

/// The headers of a [`HeaderList`] as (name, value) pairs, from [`HeaderList::iter`].
pub enum HeaderIter<'a> {
    Joined(std::str::Split<'a, char>),
    Flat(std::slice::ChunksExact<'a, HostValue>),
}

impl<'a> Iterator for HeaderIter<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            HeaderIter::Joined(parts) => Some((parts.next()?, parts.next()?)),
            HeaderIter::Flat(pairs) => match pairs.next()? {
                [HostValue::String(name), HostValue::String(value)] => Some((name, value)),
                // (`push` and `from_guest` put only strings in the list.)
                _ => None,
            },
        }
    }
}

impl From<&[(String, String)]> for HeaderList {
    fn from(headers: &[(String, String)]) -> Self {
        let bytes = headers.iter().map(|(k, v)| k.len() + v.len() + 2).sum();
        let mut list = HeaderList::with_capacity(bytes);
        for (name, value) in headers {
            list.push(name, value);
        }
        list
    }
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
        let headers = HeaderList::from(request.headers.as_slice());
        self.dispatch_parts(runtime, request.method, request.url, headers, request.body)
    }

    /// [`Web::dispatch`] of a request given as its parts: the method, the absolute URL as
    /// received, the headers (lower-case names, in the order received) and the body.
    pub fn dispatch_parts(
        &self,
        runtime: &mut Runtime,
        method: String,
        url: String,
        headers: HeaderList,
        body: Vec<u8>,
    ) -> Result<Outcome, ErrorReport> {
        self.response.borrow_mut().take();
        runtime.call(
            "__kiln_dispatch",
            &[
                HostValue::String(method),
                HostValue::String(url),
                headers.into_guest(),
                body_to_guest(body),
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

    fn pairs(items: &[(&str, &str)]) -> HeaderList {
        let pairs: Vec<(String, String)> = items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        HeaderList::from(pairs.as_slice())
    }

    fn header_list(items: &[(&str, &str)]) -> HostValue {
        pairs(items).into_guest()
    }

    #[test]
    fn headers_cross_as_one_string_unless_a_value_holds_a_line_feed() {
        assert_eq!(header_list(&[]), HostValue::from(""));
        assert_eq!(
            header_list(&[("a", "1"), ("b", ""), ("a", "2")]),
            HostValue::from("a\n1\nb\n\na\n2")
        );
        assert_eq!(header_list(&[("a", "x\ny")]), strings(&["a", "x\ny"]));
        // The headers before the first line feed join the list in their order.
        assert_eq!(
            header_list(&[("a", "1"), ("", ""), ("b", "x\ny"), ("c", "3")]),
            strings(&["a", "1", "", "", "b", "x\ny", "c", "3"])
        );
        assert_eq!(header_list(&[("a\nb", "1")]), strings(&["a\nb", "1"]));
    }

    #[test]
    fn header_values_from_bytes_are_byte_strings() {
        let mut list = HeaderList::with_capacity(0);
        list.push_bytes("host", b"a.example");
        list.push_bytes("x-latin-1", b"caf\xe9");
        list.push_bytes("x-empty", b"");
        assert_eq!(list.len(), 3);
        assert_eq!(
            list.clone().into_guest(),
            HostValue::from("host\na.example\nx-latin-1\ncaf\u{e9}\nx-empty\n")
        );
        list.push_bytes("x-lf", b"\xff\n");
        assert_eq!(list.len(), 4);
        assert_eq!(
            list.into_guest(),
            strings(&[
                "host",
                "a.example",
                "x-latin-1",
                "caf\u{e9}",
                "x-empty",
                "",
                "x-lf",
                "\u{ff}\n"
            ])
        );
        assert!(HeaderList::default().is_empty());
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
                headers: pairs(&[("a", ""), ("b", "x")]),
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
        let joined = |text: &str| HeaderList::from_guest(HostValue::from(text));
        assert_eq!(joined(""), Some(pairs(&[])));
        assert_eq!(
            joined("content-type\napplication/json"),
            Some(pairs(&[("content-type", "application/json")]))
        );
        let list = joined("a\n\nb\nx").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list.iter().collect::<Vec<_>>(), [("a", ""), ("b", "x")]);
        // the same headers in the other form
        assert_eq!(list, pairs(&[("a", ""), ("b", "x")]));
        assert_eq!(
            list,
            HeaderList::from_guest(strings(&["a", "", "b", "x"])).unwrap()
        );
        assert_eq!(joined("\n"), Some(pairs(&[("", "")])));
        assert_eq!(joined("a\n1\nb"), None);
        assert_eq!(HeaderList::from_guest(HostValue::Number(1.0)), None);
        let not_strings = HostValue::Array(vec![HostValue::from("a"), HostValue::Number(1.0)]);
        assert_eq!(HeaderList::from_guest(not_strings), None);
    }
}
