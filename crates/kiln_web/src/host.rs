//! The host side of the web platform: the functions the JavaScript calls (registered under
//! the `__kiln_web` namespace, which the module takes and removes), and the asynchronous
//! calls the embedder answers ([`WebCall`]).

use crate::codec;
use crate::handler::{HandlerResponse, ResponseSlot};
use kiln::{ConsoleLevel, HostError, HostValue, PendingCall, Runtime};
use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

/// Receives each `console` call as one formatted line.
pub type ConsoleSink = Box<dyn FnMut(ConsoleLevel, &str)>;

/// What the web platform gets from its embedder.
pub struct WebOptions {
    /// the `env` object handlers receive (string values)
    pub env: Vec<(String, String)>,
    /// where `console` output goes: one line per call, formatted as node's `util.inspect`
    /// does (stderr by default)
    pub console: ConsoleSink,
}

impl Default for WebOptions {
    fn default() -> Self {
        WebOptions {
            env: Vec::new(),
            console: Box::new(|_, line| eprintln!("{line}")),
        }
    }
}

/// Register the web platform's host functions on `runtime`; evaluate [`crate::MODULE`]
/// (through [`crate::WebLoader`]) afterwards. The returned [`crate::Web`] dispatches requests
/// to the handler the entry module installs.
pub fn install(runtime: &mut Runtime, options: WebOptions) -> crate::Web {
    let slot: ResponseSlot = Rc::new(RefCell::new(None));
    runtime.register_sync(
        "__kiln_web.urlParse",
        |input: String, base: Option<String>| codec::url_parse(&input, base.as_deref()),
    );
    runtime.register_sync(
        "__kiln_web.urlSet",
        |href: String, component: String, value: String| codec::url_set(&href, &component, &value),
    );
    runtime.register_sync("__kiln_web.urlOrigin", |href: String| {
        codec::url_origin(&href)
    });
    runtime.register_sync("__kiln_web.formParse", |query: String| {
        HostValue::Array(
            url::form_urlencoded::parse(query.as_bytes())
                .flat_map(|(k, v)| [HostValue::from(k.into_owned()), v.into_owned().into()])
                .collect(),
        )
    });
    runtime.register_sync("__kiln_web.formSerialize", |list: HostValue| {
        let mut serializer = url::form_urlencoded::Serializer::new(String::new());
        if let HostValue::Array(items) = &list {
            for pair in items.chunks(2) {
                if let [HostValue::String(k), HostValue::String(v)] = pair {
                    serializer.append_pair(k, v);
                }
            }
        }
        serializer.finish()
    });
    runtime.register_sync("__kiln_web.utf8Encode", |text: String| {
        HostValue::Bytes(text.into_bytes())
    });
    runtime.register_sync(
        "__kiln_web.utf8Decode",
        |bytes: HostValue, fatal: bool, strip_bom: bool| match bytes {
            HostValue::Bytes(bytes) => match codec::utf8_decode(&bytes, fatal, strip_bom) {
                Some(text) => HostValue::String(text),
                None => HostValue::Null,
            },
            _ => HostValue::Null,
        },
    );
    runtime.register_sync("__kiln_web.base64Encode", |binary: String| {
        codec::latin1_bytes(&binary)
            .map(|bytes| HostValue::String(codec::base64_encode(&bytes)))
            .unwrap_or(HostValue::Null)
    });
    runtime.register_sync("__kiln_web.base64Decode", |text: String| {
        codec::base64_decode(&text)
            .map(|bytes| HostValue::String(codec::latin1_string(&bytes)))
            .unwrap_or(HostValue::Null)
    });
    runtime.register_sync("__kiln_web.randomBytes", |count: f64| {
        let mut bytes = vec![0u8; count.clamp(0.0, 65536.0) as usize];
        getrandom::fill(&mut bytes)
            .map(|()| HostValue::Bytes(bytes))
            .map_err(|e| HostError::new(format!("no randomness available: {e}")))
    });
    runtime.register_sync("__kiln_web.randomUUID", || {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map(|()| uuid_v4(bytes))
            .map_err(|e| HostError::new(format!("no randomness available: {e}")))
    });
    runtime.set_console(options.console);
    let env = HostValue::object(
        options
            .env
            .into_iter()
            .map(|(k, v)| (k, HostValue::String(v))),
    );
    runtime.register_sync("__kiln_web.env", move || env.clone());
    let response = slot.clone();
    runtime.register_sync(
        "__kiln_web.respond",
        move |status: f64, status_text: String, list: HostValue, body: HostValue| {
            let parsed = HandlerResponse::from_parts(status, status_text, list, body)
                .ok_or_else(|| HostError::new("malformed response").with_name("TypeError"))?;
            *response.borrow_mut() = Some(parsed);
            Ok::<(), HostError>(())
        },
    );
    runtime.register_async("__kiln_web.sleep");
    runtime.register_async("__kiln_web.fetch");
    crate::Web::new(slot)
}

/// A version 4 UUID from 16 random bytes (RFC 9562, section 5.4).
fn uuid_v4(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// An asynchronous call of the web platform that the embedder performs and answers.
#[derive(Clone, Debug, PartialEq)]
pub enum WebCall {
    /// a timer: answer `Ok(HostValue::Undefined)` after the delay
    Sleep(Duration),
    /// `fetch()`: answer with [`FetchResponse::into_answer`], or an error (a `TypeError` in
    /// the guest, as a network error is)
    Fetch(FetchRequest),
}

/// A request the guest asked `fetch()` to make.
#[derive(Clone, Debug, PartialEq)]
pub struct FetchRequest {
    pub method: String,
    pub url: url::Url,
    /// lower-case names, in the order the guest set them
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// the request's redirect mode: `follow`, `error` or `manual`
    pub redirect: String,
}

impl FetchRequest {
    /// `Ok` when the URL's host is in `allowed` (host names, compared without case, with an
    /// optional `:port`), else the error to answer the call with.
    pub fn check_allowed(&self, allowed: &[String]) -> Result<(), HostError> {
        let host = self.url.host_str().unwrap_or_default();
        let with_port = match self.url.port_or_known_default() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        if allowed
            .iter()
            .any(|a| a.eq_ignore_ascii_case(host) || a.eq_ignore_ascii_case(&with_port))
        {
            Ok(())
        } else {
            Err(network_error(format!(
                "fetch to {} is not allowed: {host} is not in the host's allow-list",
                self.url
            )))
        }
    }
}

/// A failed fetch: a `TypeError` in the guest.
pub fn network_error(message: impl Into<String>) -> HostError {
    HostError::new(message).with_name("TypeError")
}

/// The response to a [`FetchRequest`].
#[derive(Clone, Debug, PartialEq)]
pub struct FetchResponse {
    pub status: u16,
    pub status_text: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// the URL of the response (after redirects)
    pub url: String,
    pub redirected: bool,
}

impl FetchResponse {
    /// The answer to the guest's pending `fetch` call.
    pub fn into_answer(self) -> HostValue {
        HostValue::Array(vec![
            HostValue::Number(self.status as f64),
            HostValue::String(self.status_text),
            crate::HeaderList::from(self.headers.as_slice()).into_guest(),
            crate::handler::body_to_guest(self.body),
            HostValue::String(self.url),
            HostValue::Bool(self.redirected),
        ])
    }
}

impl WebCall {
    /// The web platform call `call` is, or None for a capability of someone else's.
    /// A call whose arguments are not what the platform sends is an error to answer with.
    pub fn parse(call: &PendingCall) -> Option<Result<WebCall, HostError>> {
        match call.capability.as_str() {
            "__kiln_web.sleep" => {
                let ms = call.args.first().and_then(HostValue::as_f64).unwrap_or(0.0);
                // NaN and negative delays are zero; the longest is about 24.8 days, as in
                // browsers (a 32-bit signed millisecond count).
                let ms = if ms.is_nan() {
                    0.0
                } else {
                    ms.clamp(0.0, 2_147_483_647.0)
                };
                Some(Ok(WebCall::Sleep(Duration::from_millis(ms as u64))))
            }
            "__kiln_web.fetch" => Some(parse_fetch(call.args.first()).map(WebCall::Fetch)),
            _ => None,
        }
    }
}

fn parse_fetch(args: Option<&HostValue>) -> Result<FetchRequest, HostError> {
    let malformed = || network_error("malformed fetch request");
    let Some(HostValue::Array(parts)) = args else {
        return Err(malformed());
    };
    let [
        HostValue::String(method),
        HostValue::String(url),
        HostValue::Array(headers),
        body,
        HostValue::String(redirect),
    ] = parts.as_slice()
    else {
        return Err(malformed());
    };
    let url = url::Url::parse(url).map_err(|_| malformed())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(network_error(format!(
            "fetch supports http: and https: URLs, not {}",
            url.scheme()
        )));
    }
    let headers = headers
        .chunks(2)
        .map(|pair| match pair {
            [HostValue::String(k), HostValue::String(v)] => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .ok_or_else(malformed)?;
    let body = crate::handler::body_from_guest(body.clone()).ok_or_else(malformed)?;
    Ok(FetchRequest {
        method: method.clone(),
        url,
        headers,
        body,
        redirect: redirect.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_4_uuids_carry_their_version_and_variant() {
        let uuid = uuid_v4([0xff; 16]);
        assert_eq!(uuid, "ffffffff-ffff-4fff-bfff-ffffffffffff");
        assert_eq!(uuid_v4([0; 16]), "00000000-0000-4000-8000-000000000000");
    }

    fn fetch_of(url: &str) -> FetchRequest {
        FetchRequest {
            method: "GET".into(),
            url: url::Url::parse(url).unwrap(),
            headers: vec![],
            body: vec![],
            redirect: "follow".into(),
        }
    }

    #[test]
    fn the_allow_list_names_hosts_with_an_optional_port() {
        let allowed = vec!["api.example".to_string(), "127.0.0.1:9000".to_string()];
        assert!(
            fetch_of("http://API.example/x")
                .check_allowed(&allowed)
                .is_ok()
        );
        assert!(
            fetch_of("http://127.0.0.1:9000/")
                .check_allowed(&allowed)
                .is_ok()
        );
        let refused = fetch_of("http://127.0.0.1:9001/")
            .check_allowed(&allowed)
            .unwrap_err();
        assert_eq!(refused.name, "TypeError");
        assert_eq!(
            refused.message,
            "fetch to http://127.0.0.1:9001/ is not allowed: 127.0.0.1 is not in the host's allow-list"
        );
        assert!(
            fetch_of("http://evil.example/")
                .check_allowed(&allowed)
                .is_err()
        );
    }

    #[test]
    fn sleep_delays_are_clamped() {
        let call = |ms: f64| PendingCall {
            id: 1,
            capability: "__kiln_web.sleep".into(),
            args: vec![HostValue::Number(ms)],
        };
        assert_eq!(
            WebCall::parse(&call(-5.0)),
            Some(Ok(WebCall::Sleep(Duration::ZERO)))
        );
        assert_eq!(
            WebCall::parse(&call(f64::NAN)),
            Some(Ok(WebCall::Sleep(Duration::ZERO)))
        );
        assert_eq!(
            WebCall::parse(&call(1e300)),
            Some(Ok(WebCall::Sleep(Duration::from_millis(2_147_483_647))))
        );
    }

    #[test]
    fn other_capabilities_are_not_web_calls() {
        let call = PendingCall {
            id: 1,
            capability: "tools.search".into(),
            args: vec![],
        };
        assert_eq!(WebCall::parse(&call), None);
    }
}
