//! The small codecs behind the host functions: bytes as binary (Latin-1) strings, base64 (forgiving
//! decode), UTF-8, and a URL as the record the guest's `URL` keeps.

use kiln::HostValue;
use url::Url;

/// Bytes as a binary string (a WebIDL ByteString, the form bytes take in the guest's
/// strings and in header values): one character, U+0000..U+00FF, per byte.
pub fn latin1_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    push_latin1(&mut out, bytes);
    out
}

/// Append `bytes` to `out` as a binary string ([`latin1_string`]); ASCII is copied whole.
pub fn push_latin1(out: &mut String, bytes: &[u8]) {
    match std::str::from_utf8(bytes) {
        Ok(text) if text.is_ascii() => out.push_str(text),
        _ => out.extend(bytes.iter().map(|&b| char::from(b))),
    }
}

/// The bytes of a binary string; None if a character is above U+00FF.
pub fn latin1_bytes(binary: &str) -> Option<Vec<u8>> {
    binary
        .chars()
        .map(|c| u8::try_from(c as u32).ok())
        .collect()
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// https://infra.spec.whatwg.org/#forgiving-base64-encode
pub fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = (chunk[0] as u32) << 16
            | (*chunk.get(1).unwrap_or(&0) as u32) << 8
            | *chunk.get(2).unwrap_or(&0) as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// https://infra.spec.whatwg.org/#forgiving-base64-decode; None on failure.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    // 1. Remove ASCII whitespace.
    let mut data: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
        .collect();
    if !text.is_ascii() {
        return None;
    }
    // 2. A length divisible by 4 may end in one or two '='.
    if data.len().is_multiple_of(4) {
        if data.ends_with(b"==") {
            data.truncate(data.len() - 2);
        } else if data.ends_with(b"=") {
            data.truncate(data.len() - 1);
        }
    }
    // 3. A remainder of 1 is a failure.
    if data.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(data.len() * 3 / 4);
    let mut buffer = 0u32;
    let mut bits = 0;
    for &b in &data {
        let value = BASE64.iter().position(|&c| c == b)? as u32;
        buffer = buffer << 6 | value;
        bits += 6;
        if bits == 24 {
            out.extend_from_slice(&[(buffer >> 16) as u8, (buffer >> 8) as u8, buffer as u8]);
            buffer = 0;
            bits = 0;
        }
    }
    // 4. Leftover bits: 12 give one byte, 18 give two; the rest are discarded.
    if bits == 12 {
        out.push((buffer >> 4) as u8);
    } else if bits == 18 {
        out.extend_from_slice(&[(buffer >> 10) as u8, (buffer >> 2) as u8]);
    }
    Some(out)
}

/// UTF-8 decode (https://encoding.spec.whatwg.org/#utf-8-decode): with `fatal`, None on
/// invalid input, else each maximal invalid subsequence becomes U+FFFD (the standard's
/// replacement behaviour, which `from_utf8_lossy` follows); a leading BOM is dropped when
/// `strip_bom`.
pub fn utf8_decode(bytes: &[u8], fatal: bool, strip_bom: bool) -> Option<String> {
    let bytes = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) if strip_bom => rest,
        _ => bytes,
    };
    if fatal {
        std::str::from_utf8(bytes).ok().map(str::to_string)
    } else {
        Some(String::from_utf8_lossy(bytes).into_owned())
    }
}

/// A URL as the guest's `URL` holds it, one record that crosses the boundary with one
/// string: `[href, start, end, start, end, ..., reparses]`, where each pair is where the
/// standard's getter of protocol, username, password, host, hostname, port, pathname,
/// search and hash finds its value in href (UTF-16 offsets; every getter but `origin`
/// returns a slice of the serialization), and `reparses` says that parsing href again gives
/// this same record (true for the special schemes with a host, whose path starts with
/// `/`: the guest then answers a parse of that href from the record).
pub fn url_record(url: &Url) -> HostValue {
    use url::quirks;
    let href = quirks::href(url);
    let components = [
        quirks::protocol(url),
        quirks::username(url),
        quirks::password(url),
        quirks::host(url),
        quirks::hostname(url),
        quirks::port(url),
        quirks::pathname(url),
        quirks::search(url),
        quirks::hash(url),
    ];
    let mut record = Vec::with_capacity(2 + 2 * components.len());
    record.push(HostValue::from(href));
    for component in components {
        let (start, end) = span(href, component);
        record.push(HostValue::Number(start as f64));
        record.push(HostValue::Number(end as f64));
    }
    let reparses = matches!(url.scheme(), "http" | "https" | "ws" | "wss" | "ftp");
    record.push(HostValue::Bool(reparses));
    HostValue::Array(record)
}

/// Where `component`, a slice of `href` (or an empty string from elsewhere), lies in
/// `href`, in UTF-16 code units as the guest indexes strings. A serialized URL is ASCII,
/// where bytes and code units are the same.
fn span(href: &str, component: &str) -> (usize, usize) {
    if component.is_empty() {
        return (0, 0);
    }
    let start = (component.as_ptr() as usize)
        .checked_sub(href.as_ptr() as usize)
        .filter(|start| start + component.len() <= href.len())
        .or_else(|| href.find(component))
        .unwrap_or(0);
    let end = start + component.len();
    if href.is_ascii() {
        (start, end)
    } else {
        let units = |s: &str| s.encode_utf16().count();
        (units(&href[..start]), units(&href[..end]))
    }
}

/// https://url.spec.whatwg.org/#dom-url-origin of the URL `href` (the empty string if it
/// does not parse).
pub fn url_origin(href: &str) -> String {
    Url::parse(href)
        .map(|url| url::quirks::origin(&url))
        .unwrap_or_default()
}

/// https://url.spec.whatwg.org/#dom-url-url: the record ([`url_record`]) of `input` parsed
/// against `base`, or null.
pub fn url_parse(input: &str, base: Option<&str>) -> HostValue {
    let base = match base.map(Url::parse) {
        Some(Ok(base)) => Some(base),
        Some(Err(_)) => return HostValue::Null,
        None => None,
    };
    match Url::options().base_url(base.as_ref()).parse(input) {
        Ok(url) => url_record(&url),
        Err(_) => HostValue::Null,
    }
}

/// Run the setter of `component` on the URL `href` with `value`: the new record, or null
/// when `href` no longer parses or the component is unknown. A setter that refuses the
/// value leaves the URL as it was, as the standard says.
pub fn url_set(href: &str, component: &str, value: &str) -> HostValue {
    use url::quirks;
    let Ok(mut url) = Url::parse(href) else {
        return HostValue::Null;
    };
    let _ = match component {
        "protocol" => quirks::set_protocol(&mut url, value),
        "username" => quirks::set_username(&mut url, value),
        "password" => quirks::set_password(&mut url, value),
        "host" => quirks::set_host(&mut url, value),
        "hostname" => quirks::set_hostname(&mut url, value),
        "port" => quirks::set_port(&mut url, value),
        "pathname" => {
            quirks::set_pathname(&mut url, value);
            Ok(())
        }
        "search" => {
            quirks::set_search(&mut url, value);
            Ok(())
        }
        "hash" => {
            quirks::set_hash(&mut url, value);
            Ok(())
        }
        _ => return HostValue::Null,
    };
    url_record(&url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_every_remainder() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("\u{ff}\u{fe}", "//4="),
        ] {
            let bytes = latin1_bytes(plain).unwrap();
            assert_eq!(base64_encode(&bytes), encoded);
            assert_eq!(base64_decode(encoded).unwrap(), bytes);
        }
    }

    #[test]
    fn forgiving_base64_decode_accepts_whitespace_and_missing_padding() {
        assert_eq!(base64_decode(" Zm 9v\nYg ").unwrap(), b"foob");
        assert_eq!(base64_decode("Zm8").unwrap(), b"fo");
        assert_eq!(base64_decode("Zg").unwrap(), b"f");
    }

    #[test]
    fn forgiving_base64_decode_refuses_what_the_standard_refuses() {
        for bad in ["Z", "Zm9vY", "Zm9v=", "Zg===", "Z=g=", "Zm9v!", "Zé=="] {
            assert_eq!(base64_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn utf8_decode_replaces_or_fails_and_strips_the_bom_when_asked() {
        assert_eq!(utf8_decode(b"\xEF\xBB\xBFhi", false, true).unwrap(), "hi");
        assert_eq!(
            utf8_decode(b"\xEF\xBB\xBFhi", false, false).unwrap(),
            "\u{feff}hi"
        );
        assert_eq!(
            utf8_decode(b"a\xF0\x9F\x98b", false, true).unwrap(),
            "a\u{fffd}b"
        );
        assert_eq!(utf8_decode(b"a\xFFb", true, true), None);
    }

    #[test]
    fn binary_strings_hold_bytes() {
        assert_eq!(latin1_string(&[0, 0x41, 0xff]), "\u{0}A\u{ff}");
        assert_eq!(latin1_bytes("\u{100}"), None);
    }

    /// The components a record gives (href sliced at each span) and its `reparses` flag.
    fn components(record: &HostValue) -> (Vec<String>, bool) {
        let HostValue::Array(items) = record else {
            panic!("not a record: {record:?}");
        };
        let [
            HostValue::String(href),
            offsets @ ..,
            HostValue::Bool(reparses),
        ] = items.as_slice()
        else {
            panic!("not a record: {record:?}");
        };
        let mut parts = vec![href.clone()];
        for pair in offsets.chunks(2) {
            let [HostValue::Number(start), HostValue::Number(end)] = pair else {
                panic!("not a span: {pair:?}");
            };
            parts.push(href[*start as usize..*end as usize].to_string());
        }
        (parts, *reparses)
    }

    /// `input`'s record gives `expected`: href, then the protocol, username, password,
    /// host, hostname, port, pathname, search and hash, separated by " | ".
    fn check_record(input: &str, expected: &str, reparses: bool) {
        let expected = expected.split(" | ").map(String::from).collect();
        assert_eq!(components(&url_parse(input, None)), (expected, reparses));
    }

    #[test]
    fn url_records_slice_href_as_the_url_standard_getters_do() {
        check_record(
            "HTTP://user:pw@Example.COM:8080/a/../b?q=1#frag",
            "http://user:pw@example.com:8080/b?q=1#frag | http: | user | pw | example.com:8080 | example.com | 8080 | /b | ?q=1 | #frag",
            true,
        );
        // Empty query and fragment read as "", a default port is dropped, IPv6 keeps its
        // brackets in hostname.
        check_record(
            "https://[::1]:443/?#",
            "https://[::1]/?# | https: |  |  | [::1] | [::1] |  | / |  | ",
            true,
        );
        // A non-special URL with an opaque path: parsing its href again is not promised to
        // give the same record, so the guest does not answer from it.
        check_record(
            "mailto:a@b.example?subject=hi",
            "mailto:a@b.example?subject=hi | mailto: |  |  |  |  |  | a@b.example | ?subject=hi | ",
            false,
        );
        assert_eq!(url_parse("/relative", None), HostValue::Null);
        assert_eq!(url_parse("/x", Some("not a base")), HostValue::Null);
    }

    #[test]
    fn url_setters_answer_a_new_record_and_origin_is_read_apart() {
        let record = url_set("http://a.example/p?q#h", "search", "x=1");
        assert_eq!(components(&record).0[8], "?x=1");
        assert_eq!(
            url_set("http://a.example/", "nonsense", ""),
            HostValue::Null
        );
        assert_eq!(
            url_origin("https://user@A.example:443/x"),
            "https://a.example"
        );
        assert_eq!(
            url_origin("blob:https://a.example:8443/uuid"),
            "https://a.example:8443"
        );
        assert_eq!(url_origin("data:,x"), "null");
        assert_eq!(url_origin("not a url"), "");
    }
}
