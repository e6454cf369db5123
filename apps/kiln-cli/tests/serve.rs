//! `kiln serve` as users run it: the server on an ephemeral loopback port, spoken to over
//! plain TCP, each response's status, headers and body checked.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const HANDLER: &str = r#"
let served = 0;
export default {
  async fetch(request, env, ctx) {
    served++;
    const url = new URL(request.url);
    switch (url.pathname) {
      case "/":
        return Response.json({ ok: true });
      case "/hello":
        return new Response(`hello ${url.searchParams.get("name") ?? "world"}`, { headers: { "x-route": "hello" } });
      case "/echo": {
        const body = await request.json();
        return Response.json({ method: request.method, got: body, sum: body.values.reduce((a, b) => a + b, 0) }, { status: 201 });
      }
      case "/env":
        return Response.json({ greeting: env.GREETING, keys: Object.keys(env) });
      case "/throw":
        throw new TypeError("the handler failed on purpose");
      case "/spin":
        for (;;) {}
      case "/slow":
        await new Promise((resolve) => setTimeout(resolve, Number(url.searchParams.get("ms") ?? 300)));
        return new Response("slow done");
      case "/later":
        ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 50)).then(() => console.log("waitUntil ran")));
        return new Response("sent first");
      case "/reverse":
        return new Response(new Uint8Array(await request.arrayBuffer()).reverse(), { headers: { "content-type": "application/octet-stream" } });
      case "/served":
        return new Response(String(served));
      case "/headers":
        return new Response(null, { status: 204, headers: [["set-cookie", "a=1"], ["set-cookie", "b=2"], ["x-seen", request.headers.get("x-custom")]] });
      default:
        return new Response("no route for " + url.pathname, { status: 404 });
    }
  },
};
"#;

/// A `kiln serve` process; killed when dropped.
struct Server {
    child: Child,
    port: u16,
    stderr: Option<std::process::ChildStderr>,
}

impl Server {
    fn start(handler: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .arg("serve")
            .arg(handler)
            .args(["--port", "0"])
            .args(if extra.contains(&"--workers") {
                &[][..]
            } else {
                &["--workers", "2"][..]
            })
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start kiln serve");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("read the startup line");
        let port = line
            .split("127.0.0.1:")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        let stderr = child.stderr.take();
        Server {
            child,
            port,
            stderr,
        }
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        stream
    }

    /// Send `request` (raw bytes) on a new connection and read one response.
    fn exchange(&self, request: &[u8]) -> Response {
        let mut stream = self.connect();
        stream.write_all(request).unwrap();
        read_response(&mut BufReader::new(stream))
    }

    fn get(&self, path: &str) -> Response {
        self.exchange(
            format!("GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").as_bytes(),
        )
    }

    /// Stop the process with SIGTERM; its exit status and what it wrote on stderr.
    fn terminate(mut self) -> (std::process::ExitStatus, String) {
        signal(&self.child, "TERM");
        let status = self.child.wait().unwrap();
        let mut log = String::new();
        if let Some(mut stderr) = self.stderr.take() {
            stderr.read_to_string(&mut log).unwrap();
        }
        (status, log)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([format!("-{name}"), child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[derive(Debug)]
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 response with a Content-Length (or none: to the end of the stream).
fn read_response(reader: &mut BufReader<TcpStream>) -> Response {
    let mut status_line = String::new();
    reader.read_line(&mut status_line).unwrap();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map(|(_, v)| v.parse::<usize>().unwrap());
    let mut body = Vec::new();
    match length {
        Some(n) => {
            body.resize(n, 0);
            reader.read_exact(&mut body).unwrap();
        }
        None if status == 204 || status == 304 => {}
        None => {
            reader.read_to_end(&mut body).unwrap();
        }
    }
    Response {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

/// A file in a fresh temporary directory.
fn write_file(name: &str, source: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "kiln-serve-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, source).unwrap();
    path
}

fn handler() -> PathBuf {
    write_file("handler.js", HANDLER)
}

#[test]
fn get_routes_on_path_and_query() {
    let server = Server::start(&handler(), &[]);
    let root = server.get("/");
    assert_eq!(root.status, 200);
    assert_eq!(root.header("content-type"), Some("application/json"));
    assert_eq!(root.body, r#"{"ok":true}"#);
    let hello = server.get("/hello?name=kiln%20team");
    assert_eq!(hello.status, 200);
    assert_eq!(hello.header("x-route"), Some("hello"));
    assert_eq!(
        hello.header("content-type"),
        Some("text/plain;charset=UTF-8")
    );
    assert_eq!(hello.body, "hello kiln team");
    let headers = server.exchange(
        b"GET /headers HTTP/1.1\r\nHost: t\r\nX-Custom: yes\r\nConnection: close\r\n\r\n",
    );
    assert_eq!(headers.status, 204);
    let cookies: Vec<&str> = headers
        .headers
        .iter()
        .filter(|(n, _)| n == "set-cookie")
        .map(|(_, v)| v.as_str())
        .collect();
    assert_eq!(cookies, ["a=1", "b=2"]);
    assert_eq!(headers.header("x-seen"), Some("yes"));
}

#[test]
fn post_json_in_and_out() {
    let server = Server::start(&handler(), &[]);
    let body = r#"{"values":[1,2,3.5],"name":"ü"}"#;
    let response = server.exchange(
        format!(
            "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .as_bytes(),
    );
    assert_eq!(response.status, 201);
    assert_eq!(response.header("content-type"), Some("application/json"));
    assert_eq!(
        response.body,
        r#"{"method":"POST","got":{"values":[1,2,3.5],"name":"ü"},"sum":6.5}"#
    );
}

#[test]
fn binary_bodies_cross_unchanged() {
    let server = Server::start(&handler(), &[]);
    let mut stream = server.connect();
    stream
        .write_all(b"POST /reverse HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nConnection: close\r\n\r\n\x00\xff\xfeA")
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert!(raw.starts_with(b"HTTP/1.1 200 OK\r\n"));
    assert!(raw.ends_with(b"\r\n\r\nA\xfe\xff\x00"), "{raw:?}");
}

#[test]
fn the_handler_answers_404_for_unknown_routes() {
    let server = Server::start(&handler(), &[]);
    let response = server.get("/nowhere");
    assert_eq!(response.status, 404);
    assert_eq!(response.body, "no route for /nowhere");
}

#[test]
fn env_values_come_from_the_command_line() {
    let server = Server::start(
        &handler(),
        &["--env", "GREETING=hi there", "--env", "OTHER=x=y"],
    );
    let response = server.get("/env");
    assert_eq!(
        response.body,
        r#"{"greeting":"hi there","keys":["GREETING","OTHER"]}"#
    );
}

#[test]
fn bodies_over_max_body_get_413() {
    let server = Server::start(&handler(), &["--max-body", "1k"]);
    let big = "x".repeat(2000);
    let declared = server.exchange(
        format!("POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\nConnection: close\r\n\r\n{big}")
            .as_bytes(),
    );
    assert_eq!(declared.status, 413);
    assert_eq!(declared.body, "");
    let chunked = server.exchange(
        format!("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n7d0\r\n{big}\r\n0\r\n\r\n")
            .as_bytes(),
    );
    assert_eq!(chunked.status, 413);
    assert_eq!(server.get("/").status, 200);
}

#[test]
fn garbage_bytes_get_400() {
    let server = Server::start(&handler(), &[]);
    let response = server.exchange(b"\x00\x01garbage that is not HTTP\r\n\r\n");
    assert_eq!(response.status, 400);
    assert_eq!(server.get("/").status, 200);
}

#[test]
fn a_throwing_handler_gets_500_and_a_log_line_then_the_next_request_is_served() {
    let server = Server::start(&handler(), &["--workers", "1"]);
    let failed = server.get("/throw");
    assert_eq!(failed.status, 500);
    assert_eq!(failed.body, "");
    let next = server.get("/");
    assert_eq!(next.status, 200);
    assert_eq!(next.body, r#"{"ok":true}"#);
    // the module state survived: the runtime goes on after an exception
    assert_eq!(server.get("/served").body, "3");
    let (_, log) = server.terminate();
    assert!(
        log.contains("kiln serve: TypeError: the handler failed on purpose"),
        "{log}"
    );
    assert!(log.contains("handler.js:"), "{log}");
}

#[test]
fn a_request_over_its_budget_gets_503_then_the_next_request_is_served() {
    let server = Server::start(&handler(), &["--workers", "1", "--fuel", "5000000"]);
    let spun = server.get("/spin");
    assert_eq!(spun.status, 503);
    let next = server.get("/hello");
    assert_eq!(next.status, 200);
    assert_eq!(next.body, "hello world");
    // the runtime that ran out was replaced: the new one counts from its first request
    assert_eq!(server.get("/served").body, "2");
    let timed = Server::start(&handler(), &["--workers", "1", "--timeout-ms", "100"]);
    assert_eq!(timed.get("/spin").status, 503);
    assert_eq!(timed.get("/slow?ms=1000").status, 503);
    assert_eq!(timed.get("/slow?ms=1").body, "slow done");
    let (_, log) = server.terminate();
    assert!(
        log.contains("kiln serve: RangeError: fuel budget exhausted"),
        "{log}"
    );
}

#[test]
fn wait_until_work_runs_after_the_response() {
    let server = Server::start(&handler(), &["--workers", "1"]);
    let response = server.get("/later");
    assert_eq!(response.body, "sent first");
    std::thread::sleep(Duration::from_millis(300));
    let (_, log) = server.terminate();
    assert!(log.contains("waitUntil ran"), "{log}");
}

#[test]
fn keep_alive_serves_many_requests_on_one_connection() {
    let server = Server::start(&handler(), &[]);
    let stream = server.connect();
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    for i in 0..50 {
        writer
            .write_all(format!("GET /hello?name={i} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes())
            .unwrap();
        let response = read_response(&mut reader);
        assert_eq!(response.status, 200);
        assert_eq!(response.body, format!("hello {i}"));
    }
}

#[test]
fn many_concurrent_connections_are_all_answered() {
    let server = std::sync::Arc::new(Server::start(&handler(), &[]));
    let threads: Vec<_> = (0..64)
        .map(|t| {
            let server = server.clone();
            std::thread::spawn(move || {
                let stream = server.connect();
                let mut writer = stream.try_clone().unwrap();
                let mut reader = BufReader::new(stream);
                for i in 0..20 {
                    let path = if i % 5 == 0 {
                        "/slow?ms=20".to_string()
                    } else {
                        format!("/hello?name={t}-{i}")
                    };
                    writer
                        .write_all(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes())
                        .unwrap();
                    let response = read_response(&mut reader);
                    assert_eq!(response.status, 200);
                    let expected = if i % 5 == 0 {
                        "slow done".to_string()
                    } else {
                        format!("hello {t}-{i}")
                    };
                    assert_eq!(response.body, expected);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
}

#[test]
fn a_client_that_disconnects_mid_request_costs_nothing_afterwards() {
    let server = Server::start(&handler(), &["--workers", "1"]);
    for _ in 0..20 {
        let mut stream = server.connect();
        stream
            .write_all(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n{\"val")
            .unwrap();
        drop(stream);
        let mut waiting = server.connect();
        waiting
            .write_all(b"GET /slow?ms=50 HTTP/1.1\r\nHost: t\r\n\r\n")
            .unwrap();
        drop(waiting);
    }
    let response = server.get("/hello");
    assert_eq!(response.status, 200);
    assert_eq!(response.body, "hello world");
}

#[test]
fn sigterm_finishes_in_flight_requests_then_exits_0() {
    let server = Server::start(&handler(), &[]);
    let mut stream = server.connect();
    stream
        .write_all(b"GET /slow?ms=500 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    let port = server.port;
    let reader = std::thread::spawn(move || read_response(&mut BufReader::new(stream)));
    let (status, _) = server.terminate();
    let response = reader.join().unwrap();
    assert_eq!(response.status, 200);
    assert_eq!(response.body, "slow done");
    assert!(status.success(), "{status:?}");
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
fn a_file_that_is_not_a_handler_module_is_refused_at_startup() {
    for (name, source, expected) in [
        (
            "no-default.js",
            "export const fetch = () => new Response('x');",
            "is not a handler module: expected `export default { async fetch(request, env, ctx) { ... } }`, but it has no default export",
        ),
        (
            "no-fetch.js",
            "export default { get() {} };",
            "but its default export has no fetch method",
        ),
        (
            "function.js",
            "export default 42;",
            "but its default export is a number",
        ),
        ("syntax.js", "export default {", "SyntaxError"),
    ] {
        let path = write_file(name, source);
        let output = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(["serve", path.to_str().unwrap(), "--port", "0"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1), "{name}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{name}: {stderr}");
    }
}

#[test]
fn watch_reloads_the_handler_when_its_file_changes() {
    let version =
        |v: &str| format!("export default {{ fetch() {{ return new Response('{v}') }} }}");
    let path = write_file("watched.js", &version("v1"));
    let server = Server::start(&path, &["--watch"]);
    assert_eq!(server.get("/").body, "v1");
    std::thread::sleep(Duration::from_millis(50));
    std::fs::write(&path, "export default {").unwrap();
    std::thread::sleep(Duration::from_millis(600));
    // a version that does not load is refused; the previous one goes on serving
    assert_eq!(server.get("/").body, "v1");
    std::fs::write(&path, version("v2")).unwrap();
    let mut body = String::new();
    for _ in 0..50 {
        body = server.get("/").body;
        if body == "v2" {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(body, "v2");
    let (_, log) = server.terminate();
    assert!(
        log.contains("kiln serve: keeping the previous handler: SyntaxError"),
        "{log}"
    );
    assert!(log.contains("kiln serve: reloaded"), "{log}");
}

#[test]
fn a_kbc_built_by_kiln_build_serves_the_same_handler() {
    let lib = write_file("lib.js", "export const shout = (s) => s.toUpperCase();");
    let main = lib.with_file_name("main.js");
    std::fs::write(
        &main,
        "import { shout } from './lib.js';\nexport default { fetch(request) { return new Response(shout(new URL(request.url).searchParams.get('w'))) } };",
    )
    .unwrap();
    let kbc = lib.with_file_name("main.kbc");
    let built = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args(["build", main.to_str().unwrap(), "-o", kbc.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    // the sources are not needed any more
    std::fs::remove_file(&main).unwrap();
    std::fs::remove_file(&lib).unwrap();
    let server = Server::start(&kbc, &[]);
    let response = server.get("/?w=kiln");
    assert_eq!(response.status, 200);
    assert_eq!(response.body, "KILN");
}

#[test]
fn a_corrupt_or_foreign_kbc_is_refused_with_a_clear_message() {
    let handler = handler();
    let kbc = handler.with_file_name("handler.kbc");
    let built = Command::new(env!("CARGO_BIN_EXE_kiln"))
        .args([
            "build",
            handler.to_str().unwrap(),
            "-o",
            kbc.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(built.success());
    let good = std::fs::read(&kbc).unwrap();
    let serve = |bytes: &[u8]| {
        std::fs::write(&kbc, bytes).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_kiln"))
            .args(["serve", kbc.to_str().unwrap(), "--port", "0"])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(1));
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let mut other_version = good.clone();
    other_version[9] = b'9';
    assert!(serve(&other_version).contains("build it again with `kiln build`"));
    assert!(serve(&good[..good.len() / 2]).contains("the file is corrupt"));
    assert!(serve(b"export default {}").contains("not a compiled Kiln handler"));
}

#[test]
fn a_handler_compiles_deeply_nested_source_on_its_worker() {
    // Workers run their runtimes on Runtime::LARGE_STACK and compile `Function` and `eval`
    // sources there, however large or nested, instead of on the compiler thread.
    let handler = write_file(
        "nested.js",
        r#"
export default {
  async fetch(request) {
    const depth = Number(new URL(request.url).searchParams.get("depth"));
    const nested = "(".repeat(depth) + "41" + ")".repeat(depth);
    const viaFunction = new Function(`return ${nested} + 1;`)();
    const viaEval = (0, eval)(`[${"[".repeat(depth)}1${"]".repeat(depth)}].flat(Infinity)[0]`);
    return Response.json({ viaFunction, viaEval, length: nested.length });
  },
};
"#,
    );
    let server = Server::start(&handler, &["--workers", "1"]);
    for _ in 0..2 {
        let response = server.get("/?depth=900");
        assert_eq!(response.status, 200);
        assert_eq!(response.header("content-type"), Some("application/json"));
        assert_eq!(
            response.body,
            r#"{"viaFunction":42,"viaEval":1,"length":1802}"#
        );
    }
    let (status, log) = server.terminate();
    assert!(status.success(), "{log}");
}
