//! The web platform's classes as the WHATWG standards define them: each test runs a module
//! with the platform installed and compares what it logs, line by line.

use kiln::{ConsoleLevel, Runtime};
use kiln_web::{MemoryLoader, WebLoader, WebOptions};
use std::cell::RefCell;
use std::rc::Rc;

const HANDLER: &str = "export default { fetch() { return new Response('ok') } }";

/// The lines `source` (a module; top-level await allowed) logs with `console.log`.
fn output(source: &str) -> Vec<String> {
    let lines = Rc::new(RefCell::new(Vec::new()));
    let sink = lines.clone();
    let mut rt = Runtime::new();
    kiln_web::install(
        &mut rt,
        WebOptions {
            env: vec![("NAME".into(), "kiln".into())],
            console: Box::new(move |level, line| {
                let prefix = if level == ConsoleLevel::Log {
                    ""
                } else {
                    "[other] "
                };
                sink.borrow_mut().push(format!("{prefix}{line}"));
            }),
        },
    );
    let files = MemoryLoader::new([("handler.js", HANDLER), ("test.js", source)]);
    rt.set_module_loader(Box::new(WebLoader::new("handler.js", files)));
    if let Err(e) = rt.run_module(kiln_web::ENTRY, "") {
        panic!("the entry failed: {e}");
    }
    if let Err(e) = rt.run_module("test.js", "") {
        panic!(
            "the test module failed: {e}\nafter logging {:?}",
            lines.borrow()
        );
    }
    lines.take()
}

fn check(source: &str, expected: &[&str]) {
    assert_eq!(output(source), expected);
}

/// A helper the test modules use: the error `f` throws (or a promise rejects with) as
/// `Name: message`.
const CATCH: &str = "
const caught = (f) => { try { f(); return 'no error'; } catch (e) { return `${e.name}: ${e.message}`; } };
const rejected = async (p) => { try { await p; return 'no error'; } catch (e) { return `${e.name}: ${e.message}`; } };
";

fn check_with_helpers(source: &str, expected: &[&str]) {
    check(&format!("{CATCH}{source}"), expected);
}

#[test]
fn headers_are_case_insensitive_combined_and_sorted() {
    check_with_helpers(
        r#"
        const h = new Headers({ "Content-Type": "text/plain", "X-B": " 1 " });
        h.append("x-b", "2");
        h.append("Set-Cookie", "a=1");
        h.append("set-cookie", "b=2");
        h.append("accept", "*/*");
        console.log(h.get("CONTENT-TYPE"), h.get("x-b"), h.get("missing"), h.has("X-b"));
        console.log(JSON.stringify([...h]));
        console.log(JSON.stringify(h.getSetCookie()), h.get("set-cookie"));
        h.set("X-B", "3");
        h.delete("accept");
        console.log(JSON.stringify([...h.keys()]), JSON.stringify([...h.values()]));
        const seen = [];
        h.forEach((value, name, self) => seen.push(`${name}=${value}:${self === h}`));
        console.log(seen.join(" "));
        console.log(JSON.stringify([...new Headers([["a", "1"], ["A", "2"]])]));
        console.log(Object.prototype.toString.call(h), Object.prototype.toString.call(h.entries()));
        "#,
        &[
            "text/plain 1, 2 null true",
            r#"[["accept","*/*"],["content-type","text/plain"],["set-cookie","a=1"],["set-cookie","b=2"],["x-b","1, 2"]]"#,
            r#"["a=1","b=2"] a=1, b=2"#,
            r#"["content-type","set-cookie","set-cookie","x-b"] ["text/plain","a=1","b=2","3"]"#,
            "content-type=text/plain:true set-cookie=a=1:true set-cookie=b=2:true x-b=3:true",
            r#"[["a","1, 2"]]"#,
            "[object Headers] [object Headers Iterator]",
        ],
    );
}

#[test]
fn headers_refuse_invalid_names_values_and_init() {
    check_with_helpers(
        r#"
        const h = new Headers();
        console.log(caught(() => h.append("bad name", "x")));
        console.log(caught(() => h.set("x", "a\nb")));
        console.log(caught(() => h.get("é")), caught(() => h.get("€")));
        console.log(caught(() => new Headers([["only-name"]])));
        console.log(caught(() => new Headers("a: b")));
        console.log(caught(() => Response.redirect("http://a.example/").headers.set("x", "1")));
        const seen = [];
        const live = new Headers({ a: "1", b: "2", c: "3" });
        for (const [name] of live) { seen.push(name); if (name === "a") live.delete("b"); }
        console.log(seen.join(","));
        "#,
        &[
            r#"TypeError: Invalid header name: "bad name""#,
            r#"TypeError: Invalid header value: "a\nb""#,
            r#"TypeError: Invalid header name: "é" TypeError: Header name contains a character outside the Latin-1 range: "€""#,
            "TypeError: Each Headers entry must be a [name, value] pair, got 1 items",
            "TypeError: Headers init must be an object, an iterable of [name, value] pairs or a Headers",
            "TypeError: These headers are immutable",
            "a,c",
        ],
    );
}

#[test]
fn urls_parse_resolve_and_update_as_the_url_standard_says() {
    check_with_helpers(
        r#"
        const u = new URL("../c?x=1#h", "https://user:pw@EXAMPLE.com:443/a/b");
        console.log(u.href, u.origin, u.host, u.port === "", u.pathname, u.search, u.hash);
        u.pathname = "/über space";
        u.port = "8443";
        u.hash = "";
        console.log(u.href);
        u.searchParams.append("y", "a b&c");
        console.log(u.search, u.searchParams.get("x"));
        u.search = "?z=9";
        console.log(u.searchParams.get("z"), u.searchParams.has("x"), u.searchParams.size);
        u.protocol = "foo:";
        const special = u.protocol;
        u.protocol = "ftp";
        console.log(special, u.protocol);
        console.log(caught(() => new URL("/relative")));
        console.log(caught(() => { u.href = "not a url"; }));
        console.log(URL.canParse("http://a"), URL.canParse("nope"), URL.parse("nope"), URL.parse("HTTP://A/%7e").href);
        console.log(JSON.stringify({ u: new URL("http://a.test") }), String(new URL("http://[::1]:80/")));
        console.log(new URL("http://xn--n3h.example/").hostname, new URL("http://☃.example/").hostname);
        "#,
        &[
            "https://user:pw@example.com/c?x=1#h https://example.com example.com true /c ?x=1 #h",
            "https://user:pw@example.com:8443/%C3%BCber%20space?x=1",
            "?x=1&y=a+b%26c 1",
            "9 false 1",
            "https: ftp:",
            "TypeError: Invalid URL: /relative",
            "TypeError: Invalid URL: not a url",
            "true false null http://a/%7e",
            r#"{"u":"http://a.test/"} http://[::1]/"#,
            "xn--n3h.example xn--n3h.example",
        ],
    );
}

#[test]
fn url_search_params_parse_mutate_sort_and_serialize() {
    check(
        r#"
        const p = new URLSearchParams("?a=1&b=%20x+y&a=2&c&=e");
        console.log(p.get("a"), JSON.stringify(p.getAll("a")), JSON.stringify(p.get("b")), JSON.stringify(p.get("c")), p.get(""), p.size);
        p.delete("a", "1");
        p.set("b", "é");
        p.append("z", "+&=");
        p.sort();
        console.log(p.toString());
        console.log(new URLSearchParams({ q: "1 2", r: "ß" }).toString(), new URLSearchParams([["k", "v"]]).toString());
        console.log(p.has("a"), p.has("a", "1"), p.has("a", "2"), JSON.stringify([...p.keys()]));
        "#,
        &[
            r#"1 ["1","2"] " x y" "" e 5"#,
            "=e&a=2&b=%C3%A9&c=&z=%2B%26%3D",
            "q=1+2&r=%C3%9F k=v",
            r#"true false true ["","a","b","c","z"]"#,
        ],
    );
}

#[test]
fn text_encoder_and_decoder_code_utf8() {
    check_with_helpers(
        r#"
        const bytes = new TextEncoder().encode("a€😀\uD800");
        console.log(Array.from(bytes).join(","));
        console.log(new TextDecoder().decode(bytes), new TextDecoder().encoding);
        console.log(new TextDecoder().decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x68, 0xFF])));
        console.log(JSON.stringify(new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array([0xEF, 0xBB, 0xBF, 0x68]))));
        console.log(caught(() => new TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xC3]))));
        console.log(caught(() => new TextDecoder("latin1")));
        const streaming = new TextDecoder();
        console.log(streaming.decode(new Uint8Array([0xE2, 0x82]), { stream: true }) + "|" + streaming.decode(new Uint8Array([0xAC])));
        const into = new Uint8Array(4);
        console.log(JSON.stringify(new TextEncoder().encodeInto("a€b", into)), Array.from(into).join(","));
        console.log(new TextDecoder(" UTF8 ").fatal, new TextDecoder("utf-8", { fatal: 1 }).fatal);
        "#,
        &[
            "97,226,130,172,240,159,152,128,239,191,189",
            "a€😀\u{fffd} utf-8",
            "h\u{fffd}",
            "\"\u{feff}h\"",
            "TypeError: The encoded data was not valid UTF-8",
            "RangeError: The encoding label provided ('latin1') is not supported (only UTF-8 is)",
            "|€",
            r#"{"read":2,"written":4} 97,226,130,172"#,
            "false true",
        ],
    );
}

#[test]
fn atob_and_btoa_use_forgiving_base64() {
    check_with_helpers(
        r#"
        console.log(btoa("hello"), btoa("\xff\xfe"), atob("aGVs bG8="), atob("aGVsbG8"));
        console.log(caught(() => btoa("€")));
        console.log(caught(() => atob("a")));
        const e = (() => { try { atob("!"); } catch (e) { return e; } })();
        console.log(e instanceof DOMException, e instanceof Error, e.code);
        "#,
        &[
            "aGVsbG8= //4= hello hello",
            "InvalidCharacterError: btoa: the string contains characters outside of the Latin-1 range",
            "InvalidCharacterError: atob: the string to be decoded is not correctly encoded",
            "true true 5",
        ],
    );
}

#[test]
fn responses_carry_status_headers_and_a_body_used_once() {
    check_with_helpers(
        r#"
        const r = new Response("hi", { status: 201, statusText: "Made", headers: { "X-A": "1" } });
        console.log(r.status, r.statusText, r.ok, r.type, r.headers.get("content-type"), r.headers.get("x-a"), r.bodyUsed);
        console.log(await r.text(), r.bodyUsed);
        console.log(await rejected(r.text()));
        console.log(caught(() => r.clone()));
        const j = Response.json({ a: [1, "x"] }, { status: 404 });
        console.log(j.status, j.ok, j.headers.get("content-type"), JSON.stringify(await j.clone().json()), await j.text());
        const red = Response.redirect("http://a.example/x y", 301);
        console.log(red.status, red.headers.get("location"), await red.text() === "");
        console.log(caught(() => Response.redirect("http://a.example/", 200)));
        console.log(caught(() => new Response("x", { status: 204 })));
        console.log(caught(() => new Response("x", { status: 99 })));
        console.log(caught(() => new Response("x", { statusText: "a\nb" })));
        console.log(caught(() => Response.json(undefined)));
        const err = Response.error();
        console.log(err.type, err.status, new Response(null, { status: 204 }).status);
        const bytes = new Response(new Uint8Array([104, 0xff]));
        console.log(bytes.headers.get("content-type"), Array.from(await bytes.clone().bytes()).join(","), (await bytes.arrayBuffer()).byteLength);
        console.log(await new Response(new URLSearchParams("a=1")).text(), new Response(new URLSearchParams()).headers.get("content-type"));
        console.log(await new Response({}).text(), await new Response().text(), new Response().bodyUsed);
        console.log(await rejected(new Response("{").json()));
        "#,
        &[
            "201 Made true default text/plain;charset=UTF-8 1 false",
            "hi true",
            "TypeError: Body has already been used",
            "TypeError: Cannot clone a Response whose body was already used",
            r#"404 false application/json {"a":[1,"x"]} {"a":[1,"x"]}"#,
            "301 http://a.example/x%20y true",
            "RangeError: Invalid redirect status: 200",
            "TypeError: Response with null body status 204 cannot have body",
            "RangeError: The status provided (99) is outside the range [200, 599]",
            r#"TypeError: Invalid status text: "a\nb""#,
            "TypeError: Response.json: the value is not JSON serializable",
            "error 0 204",
            "null 104,255 2",
            "a=1 application/x-www-form-urlencoded;charset=UTF-8",
            "[object Object]  false",
            "SyntaxError: Unexpected end of JSON input",
        ],
    );
}

#[test]
fn a_missing_response_init_is_the_defaults_and_reads_nothing_inherited() {
    check(
        r#"
        Object.prototype.status = 404;
        Object.prototype.statusText = "Inherited";
        const plain = new Response("x");
        const withNull = new Response("x", null);
        const json = Response.json({ a: 1 });
        delete Object.prototype.status;
        delete Object.prototype.statusText;
        console.log(plain.status, JSON.stringify(plain.statusText), withNull.status, json.status);
        console.log(json.headers.get("content-type"), await json.text());
        "#,
        &["200 \"\" 200 200", r#"application/json {"a":1}"#],
    );
}

#[test]
fn requests_normalize_their_method_and_refuse_what_fetch_refuses() {
    check_with_helpers(
        r#"
        const r = new Request("http://a.example/p?q", { method: "post", body: "x=1", headers: { "X-Y": "z" } });
        console.log(r.method, r.url, r.headers.get("content-type"), r.headers.get("x-y"), r.redirect);
        const copy = new Request(r, { method: "PUT" });
        console.log(copy.method, r.bodyUsed, await copy.text());
        console.log(new Request("http://a.example/", { method: "patch" }).method);
        console.log(caught(() => new Request("http://a.example/", { method: "GET", body: "x" })));
        console.log(caught(() => new Request("http://a.example/", { method: "TRACE" })));
        console.log(caught(() => new Request("http://a.example/", { method: "bad method" })));
        console.log(caught(() => new Request("/relative")));
        console.log(caught(() => new Request("http://u:p@a.example/")));
        console.log(caught(() => new Request("http://a.example/", { redirect: "sideways" })));
        console.log(caught(() => new Request(r)));
        const c = new Request("http://a.example/", { method: "POST", body: new Uint8Array([1, 2]) });
        const c2 = c.clone();
        console.log(Array.from(await c.bytes()).join(","), (await c2.arrayBuffer()).byteLength, c.headers.has("content-type"));
        "#,
        &[
            "POST http://a.example/p?q text/plain;charset=UTF-8 z follow",
            "PUT true x=1",
            "patch",
            "TypeError: Request with GET/HEAD method cannot have body",
            "TypeError: Method TRACE is forbidden",
            r#"TypeError: Invalid method: "bad method""#,
            "TypeError: Invalid URL: /relative",
            "TypeError: Request cannot be constructed from a URL that includes credentials: http://u:p@a.example/",
            r#"TypeError: Invalid redirect mode: "sideways""#,
            "TypeError: Cannot construct a Request from one whose body was already used",
            "1,2 2 false",
        ],
    );
}

#[test]
fn structured_clone_copies_data_keeps_cycles_and_refuses_functions() {
    check_with_helpers(
        r#"
        const shared = { n: 1 };
        const source = { d: new Date(0), m: new Map([[1, shared]]), s: new Set(["a"]), a: [shared, shared], u8: new Uint8Array([1, 2, 3]).subarray(1), big: 10n, re: /x/gi, e: new RangeError("r") };
        source.self = source;
        const copy = structuredClone(source);
        console.log(copy !== source, copy.self === copy, copy.a[0] === copy.a[1], copy.a[0] !== shared, copy.m.get(1) === copy.a[0]);
        console.log(copy.d instanceof Date, copy.d.getTime(), copy.s.has("a"), Array.from(copy.u8).join(","), copy.u8.byteOffset, copy.u8.buffer.byteLength);
        console.log(copy.big, String(copy.re), copy.e instanceof RangeError, copy.e.message);
        class Point { constructor() { this.x = 1; } }
        const p = structuredClone(new Point());
        console.log(Object.getPrototypeOf(p) === Object.prototype, p.x);
        console.log(caught(() => structuredClone(() => 1)));
        console.log(caught(() => structuredClone({ s: Symbol("x") })));
        console.log(caught(() => structuredClone(new Headers())));
        "#,
        &[
            "true true true true true",
            "true 0 true 2,3 1 3",
            "10n /x/gi true r",
            "true 1",
            "DataCloneError: The function (anonymous) could not be cloned",
            "DataCloneError: A Symbol could not be cloned",
            "DataCloneError: A Headers could not be cloned",
        ],
    );
}

#[test]
fn crypto_gives_random_values_and_version_4_uuids() {
    check_with_helpers(
        r#"
        const a = crypto.getRandomValues(new Uint32Array(8));
        const b = crypto.getRandomValues(new Uint32Array(8));
        console.log(a.length, a.join() !== b.join());
        const uuid = crypto.randomUUID();
        console.log(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(uuid), uuid !== crypto.randomUUID());
        console.log(caught(() => crypto.getRandomValues(new Float64Array(1))));
        console.log(caught(() => crypto.getRandomValues(new Uint8Array(65537))));
        "#,
        &[
            "8 true",
            "true true",
            "TypeMismatchError: getRandomValues: the argument must be an integer typed array",
            "QuotaExceededError: getRandomValues: 65537 bytes requested, more than 65536",
        ],
    );
}

#[test]
fn console_lines_reach_the_embedders_sink_with_their_level() {
    check(
        r#"
        console.log("text", 1, -0, [1, "a", { b: null }], { "x-y": undefined, n: 1n }, new Map([[1, 2]]));
        console.warn("careful");
        const o = { name: "o" };
        o.self = o;
        console.log(o, new URL("http://a/"), [function f() {}]);
        "#,
        &[
            "text 1 -0 [ 1, 'a', { b: null } ] { 'x-y': undefined, n: 1n } Map(1) { 1 => 2 }",
            "[other] careful",
            "<ref *1> { name: 'o', self: [Circular *1] } URL {} [ [Function: f] ]",
        ],
    );
}

#[test]
fn globals_are_installed_as_webidl_does() {
    check(
        r#"
        const names = ["Headers", "Request", "Response", "URL", "URLSearchParams", "TextEncoder", "TextDecoder", "atob", "btoa", "structuredClone", "crypto", "console", "setTimeout", "clearTimeout", "fetch", "DOMException"];
        console.log(names.every((n) => { const d = Object.getOwnPropertyDescriptor(globalThis, n); return d.writable && d.configurable && !d.enumerable; }));
        console.log(typeof globalThis.__kiln_web, Object.keys(globalThis).length);
        "#,
        &["true", "undefined 0"],
    );
}

#[test]
fn url_getters_follow_setters_and_urls_of_one_href_stay_apart() {
    check_with_helpers(
        r##"
        const s = "http://a.example/p?x=1#top";
        const a = new URL(s);
        const b = new URL(s);
        a.search = "?y=2";
        a.hash = "#end";
        console.log(a.href, a.search, a.hash, a.pathname);
        console.log(b.href, b.search, b.hash, b.searchParams.get("x"));
        const params = a.searchParams;
        console.log(params.get("y"), params.has("x"), params === a.searchParams, b.searchParams === params);
        a.search = "z=3";
        console.log(params.get("z"), params.get("y"), a.href);
        a.href = "https://b.example:8080/q?w=4";
        console.log(params.get("w"), a.origin, a.host, a.hostname, a.port, a.protocol);
        params.append("v", "5");
        console.log(a.search, a.href, b.href);
        a.hash = "";
        a.search = "";
        console.log(a.href, JSON.stringify([a.search, a.hash, params.size]));
        a.port = "nonsense";
        a.hostname = "";
        console.log(a.href, a.username === "", a.password === "");
        const c = new URL("ftp://u:p@[::1]:21/d");
        console.log(c.username, c.password, c.host, c.hostname, c.port === "", c.origin);
        const d = new URL("blob:https://a.example:8443/uuid");
        console.log(d.protocol, d.pathname, d.origin, new URL("data:,x").origin);
        console.log(URL.parse(s).href === s, URL.parse("/x", s).href, URL.canParse(s), new URL(new URL(s)).hash);
        console.log(caught(() => new URL(Symbol("s"))), caught(() => new Headers([[Symbol("n"), "v"]])), new URL({ toString: () => s }).search);
        "##,
        &[
            "http://a.example/p?y=2#end ?y=2 #end /p",
            "http://a.example/p?x=1#top ?x=1 #top 1",
            "2 false true false",
            "3 null http://a.example/p?z=3#end",
            "4 https://b.example:8080 b.example:8080 b.example 8080 https:",
            "?w=4&v=5 https://b.example:8080/q?w=4&v=5 http://a.example/p?x=1#top",
            r#"https://b.example:8080/q ["","",0]"#,
            "https://b.example:8080/q true true",
            "u p [::1] [::1] true ftp://[::1]",
            "blob: https://a.example:8443/uuid https://a.example:8443 null",
            "true http://a.example/x true #top",
            "TypeError: Cannot convert a Symbol value to a string TypeError: Cannot convert a Symbol value to a string ?x=1",
        ],
    );
}

#[test]
fn headers_keep_repeated_names_apart_until_read_and_share_one_list_with_their_owner() {
    check_with_helpers(
        r#"
        const r = new Response("x", { headers: [["X-A", "1"], ["x-a", "2"], ["Set-Cookie", "a=1"], ["SET-COOKIE", "b=2"], ["B", "3"]] });
        console.log(r.headers === r.headers, r.headers.get("X-A"), JSON.stringify(r.headers.getSetCookie()));
        console.log(JSON.stringify([...r.headers]));
        r.headers.append("b", "4");
        r.headers.delete("X-A");
        console.log(JSON.stringify([...r.clone().headers]));
        const red = Response.redirect("http://a.example/");
        console.log(caught(() => red.headers.append("x", "1")), caught(() => red.clone().headers.delete("location")), red.clone().headers.get("location"));
        console.log(caught(() => Response.error().headers.set("x", "1")), caught(() => new Headers([["x", "1"]]).set("bad name", "1")));
        const q = new Request("http://a.example/", { headers: { "X-B": "1", "x-b": "2" } });
        const q2 = q.clone();
        q2.headers.append("x-b", "3");
        console.log(q.headers.get("x-b"), q2.headers.get("x-b"), new Request(q2).headers.get("X-B"));
        "#,
        &[
            r#"true 1, 2 ["a=1","b=2"]"#,
            r#"[["b","3"],["content-type","text/plain;charset=UTF-8"],["set-cookie","a=1"],["set-cookie","b=2"],["x-a","1, 2"]]"#,
            r#"[["b","3, 4"],["content-type","text/plain;charset=UTF-8"],["set-cookie","a=1"],["set-cookie","b=2"]]"#,
            "TypeError: These headers are immutable TypeError: These headers are immutable http://a.example/",
            r#"TypeError: These headers are immutable TypeError: Invalid header name: "bad name""#,
            "1, 2 1, 2, 3 1, 2, 3",
        ],
    );
}

/// A runtime that evaluated the handler module `handler`, its web platform, and the lines
/// it logs.
fn warm(handler: &str) -> (Runtime, kiln_web::Web, Rc<RefCell<Vec<String>>>) {
    let lines = Rc::new(RefCell::new(Vec::new()));
    let sink = lines.clone();
    let mut rt = Runtime::new();
    let web = kiln_web::install(
        &mut rt,
        WebOptions {
            env: vec![],
            console: Box::new(move |_, line| sink.borrow_mut().push(line.to_string())),
        },
    );
    let files = MemoryLoader::new([("handler.js", handler)]);
    rt.set_module_loader(Box::new(WebLoader::new("handler.js", files)));
    rt.run_module(kiln_web::ENTRY, "").unwrap();
    (rt, web, lines)
}

/// What a handler module answers to `request` through the dispatcher the host calls, with
/// the lines it logs.
fn serve(
    handler: &str,
    request: kiln_web::IncomingRequest,
) -> (kiln_web::HandlerResponse, Vec<String>) {
    let (mut rt, web, lines) = warm(handler);
    let outcome = web.dispatch(&mut rt, request).unwrap();
    assert!(matches!(outcome, kiln::Outcome::Complete(_)), "{outcome:?}");
    let response = web.take_response().expect("no response");
    (response, lines.take())
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn header_list(items: &[(&str, &str)]) -> kiln_web::HeaderList {
    kiln_web::HeaderList::from(pairs(items).as_slice())
}

fn incoming(url: &str, headers: &[(&str, &str)]) -> kiln_web::IncomingRequest {
    kiln_web::IncomingRequest {
        method: "GET".into(),
        url: url.into(),
        headers: pairs(headers),
        body: vec![],
    }
}

#[test]
fn the_request_url_is_the_serialization_of_the_url_the_host_received() {
    let handler = r#"export default {
        fetch(request) {
            const url = new URL(request.url);
            url.search = "?changed";
            const again = new URL(request.url);
            console.log(request.url, url.href, again.href, again.pathname, again.search, again.host);
            console.log(new Request(request).url, request.clone().url);
            return new Response(null, { status: 204 });
        }
    }"#;
    let (response, lines) = serve(handler, incoming("http://EXAMPLE.com:80/a/../b c?q=1", &[]));
    assert_eq!(response.status, 204);
    assert_eq!(
        lines,
        [
            "http://example.com/b%20c?q=1 http://example.com/b%20c?changed http://example.com/b%20c?q=1 /b%20c ?q=1 example.com",
            "http://example.com/b%20c?q=1 http://example.com/b%20c?q=1",
        ]
    );
}

#[test]
fn request_headers_from_the_host_keep_their_order_repeats_and_case_rules() {
    let handler = r#"export default {
        async fetch(request) {
            const h = request.headers;
            console.log(h === request.headers, h.get("Accept"), h.get("x-empty") === "", h.has("X-MISSING"));
            console.log(JSON.stringify([...h]));
            h.append("x-added", "1");
            console.log(JSON.stringify([...request.clone().headers.keys()]));
            return new Response("ok", { headers: [["Set-Cookie", "a=1"], ["set-cookie", "b=2"], ["X-Seen", h.get("accept")]] });
        }
    }"#;
    let headers = [
        ("host", "a.example"),
        ("accept", "text/html"),
        ("x-empty", ""),
        ("accept", "*/*"),
    ];
    let (response, lines) = serve(handler, incoming("http://a.example/", &headers));
    assert_eq!(
        lines,
        [
            "true text/html, */* true false",
            r#"[["accept","text/html, */*"],["host","a.example"],["x-empty",""]]"#,
            r#"["accept","host","x-added","x-empty"]"#,
        ]
    );
    assert_eq!(
        response.headers,
        header_list(&[
            ("set-cookie", "a=1"),
            ("set-cookie", "b=2"),
            ("x-seen", "text/html, */*"),
            ("content-type", "text/plain;charset=UTF-8"),
        ])
    );
    assert_eq!(response.body, b"ok");
    // A value holding a line feed (which HTTP does not carry) crosses as a list.
    let (_, lines) = serve(
        "export default { fetch(r) { console.log(JSON.stringify(r.headers.get('x'))); return new Response(); } }",
        incoming("http://a.example/", &[("x", "1\n2"), ("y", "3")]),
    );
    assert_eq!(lines, [r#""1\n2""#]);
}

#[test]
fn handlers_answer_synchronously_or_through_promises_and_thenables() {
    let handler = r#"
        let n = 0;
        export default {
            fetch(request, env, ctx) {
                n++;
                if (n === 1) return new Response("sync");
                if (n === 2) return Promise.resolve(new Response("promise"));
                if (n === 3) return { then(resolve) { resolve(new Response("thenable")); } };
                ctx.waitUntil(Promise.resolve().then(() => console.log("after")));
                return new Response("waits");
            }
        }"#;
    let (mut rt, web, lines) = warm(handler);
    for expected in ["sync", "promise", "thenable", "waits"] {
        web.dispatch(&mut rt, incoming("http://a.example/", &[]))
            .unwrap();
        assert_eq!(web.take_response().unwrap().body, expected.as_bytes());
    }
    assert_eq!(lines.take(), ["after"]);
}

#[test]
fn fetch_hands_the_host_the_request_record_and_answers_with_immutable_headers() {
    let handler = r#"export default {
        async fetch(request) {
            const sent = new Request("http://API.example:80/x/../y", { method: "POST", body: "hi", headers: [["X-A", "1"], ["x-a", "2"]] });
            const answer = await fetch(sent);
            console.log(sent.bodyUsed, answer.status, answer.statusText, answer.url, answer.redirected, answer.type);
            console.log(JSON.stringify([...answer.headers]), answer.headers.get("Set-Cookie"));
            console.log((() => { try { answer.headers.append("x", "1"); } catch (e) { return e.message; } })());
            console.log(await answer.clone().text(), JSON.stringify([...answer.clone().headers.keys()]));
            return new Response(await answer.text());
        }
    }"#;
    let (mut rt, web, lines) = warm(handler);
    let outcome = web
        .dispatch(&mut rt, incoming("http://a.example/", &[]))
        .unwrap();
    let kiln::Outcome::Suspended(calls) = outcome else {
        panic!("the handler did not wait for fetch: {outcome:?}");
    };
    let Some(Ok(kiln_web::WebCall::Fetch(request))) = kiln_web::WebCall::parse(&calls[0]) else {
        panic!("not a fetch: {calls:?}");
    };
    assert_eq!(request.method, "POST");
    assert_eq!(request.url.as_str(), "http://api.example/y");
    assert_eq!(
        request.headers,
        pairs(&[
            ("x-a", "1"),
            ("x-a", "2"),
            ("content-type", "text/plain;charset=UTF-8")
        ])
    );
    assert_eq!(request.body, b"hi");
    let answer = kiln_web::FetchResponse {
        status: 201,
        status_text: "Made".into(),
        headers: pairs(&[("set-cookie", "a=1"), ("b", "2"), ("set-cookie", "c=3")]),
        body: b"body".to_vec(),
        url: "http://api.example/z".into(),
        redirected: true,
    };
    let outcome = rt.resume(calls[0].id, Ok(answer.into_answer())).unwrap();
    assert!(matches!(outcome, kiln::Outcome::Complete(_)), "{outcome:?}");
    assert_eq!(web.take_response().unwrap().body, b"body");
    assert_eq!(
        lines.take(),
        [
            "true 201 Made http://api.example/z true basic",
            r#"[["b","2"],["set-cookie","a=1"],["set-cookie","c=3"]] a=1, c=3"#,
            "These headers are immutable",
            r#"body ["b","set-cookie","set-cookie"]"#,
        ]
    );
}

#[test]
fn a_handler_that_throws_or_returns_no_response_fails_its_request_alone() {
    let handler = r#"
        let n = 0;
        export default {
            fetch(request) {
                n++;
                if (n === 1) throw new TypeError("thrown at once");
                if (n === 2) return 5;
                if (n === 3) return Promise.reject(new RangeError("rejected"));
                if (n === 4) return Response.error();
                return new Response(String(n));
            }
        }"#;
    let (mut rt, web, _) = warm(handler);
    for expected in [
        "TypeError: thrown at once",
        "TypeError: fetch() must return a Response (or a promise of one), but returned a number",
        "RangeError: rejected",
        "TypeError: fetch() returned Response.error()",
    ] {
        let error = web
            .dispatch(&mut rt, incoming("http://a.example/", &[]))
            .unwrap_err();
        assert!(error.to_string().contains(expected), "{error}");
        assert_eq!(web.take_response(), None);
    }
    web.dispatch(&mut rt, incoming("http://a.example/", &[]))
        .unwrap();
    assert_eq!(web.take_response().unwrap().body, b"5");
}

#[test]
fn wait_until_belongs_to_the_context_of_the_request_being_served() {
    let handler = r#"
        let kept = null;
        export default {
            fetch(request, env, ctx) {
                const tries = [];
                const attempt = (f) => { try { f(); tries.push("ok"); } catch (e) { tries.push(e.name); } };
                attempt(() => ctx.waitUntil.call({}, 1));
                attempt(() => ctx.waitUntil.call(Object.create(Object.getPrototypeOf(ctx)), 1));
                attempt(() => new ctx.constructor().waitUntil(1));
                if (kept !== null) attempt(() => kept.waitUntil(1));
                kept = ctx;
                console.log(Object.prototype.toString.call(ctx), kept === ctx, tries.join(" "));
                ctx.waitUntil(Promise.reject(new Error("reported")));
                return new Response("ok");
            }
        }"#;
    let (mut rt, web, lines) = warm(handler);
    for _ in 0..2 {
        web.dispatch(&mut rt, incoming("http://a.example/", &[]))
            .unwrap();
        assert_eq!(web.take_response().unwrap().body, b"ok");
    }
    let lines = lines.take();
    assert_eq!(
        lines[0],
        "[object ExecutionContext] true TypeError TypeError TypeError"
    );
    assert!(
        lines[1].starts_with("Uncaught Error: reported"),
        "{lines:?}"
    );
    // The context of the first request, kept by the module, is not the second's.
    assert_eq!(
        lines[2],
        "[object ExecutionContext] true TypeError TypeError TypeError TypeError"
    );
}

#[test]
fn a_response_is_recognized_by_its_brand_and_its_headers_read_whatever_form_they_take() {
    let handler = r#"
        let n = 0;
        export default {
            fetch(request) {
                n++;
                if (n === 1) return Object.setPrototypeOf(Response.json({ a: 1 }), null);
                if (n === 2) return Object.create(Response.prototype);
                if (n === 3) {
                    const r = Response.json({ b: 2 });
                    const copy = r.clone();
                    r.headers.append("x-one", "1");
                    console.log(JSON.stringify([...r.headers]), JSON.stringify([...copy.headers]));
                    return r;
                }
                if (n === 4) return new Response("made", { status: 201, statusText: "Made" });
                if (n === 5) return Response.json([1], { headers: { "content-type": "text/json" } });
                return new Response(null, { status: 204 });
            }
        }"#;
    let (mut rt, web, lines) = warm(handler);
    let mut next = || {
        let outcome = web.dispatch(&mut rt, incoming("http://a.example/", &[]));
        (outcome, web.take_response())
    };
    let (_, response) = next();
    let response = response.unwrap();
    assert_eq!(
        (response.headers, response.body),
        (
            header_list(&[("content-type", "application/json")]),
            br#"{"a":1}"#.to_vec()
        )
    );
    let (outcome, response) = next();
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("fetch() must return a Response"), "{error}");
    assert_eq!(response, None);
    let (_, response) = next();
    assert_eq!(
        response.unwrap().headers,
        header_list(&[("content-type", "application/json"), ("x-one", "1")])
    );
    let (_, response) = next();
    let response = response.unwrap();
    assert_eq!(
        (
            response.status,
            response.status_text.as_str(),
            response.headers
        ),
        (
            201,
            "Made",
            header_list(&[("content-type", "text/plain;charset=UTF-8")])
        )
    );
    let (_, response) = next();
    assert_eq!(
        response.unwrap().headers,
        header_list(&[("content-type", "text/json")])
    );
    let (_, response) = next();
    let response = response.unwrap();
    assert_eq!((response.status, response.headers), (204, header_list(&[])));
    assert_eq!(
        lines.take(),
        [
            r#"[["content-type","application/json"],["x-one","1"]] [["content-type","application/json"]]"#
        ]
    );
}
