//! The request path of `kiln serve` without the network: a warm runtime that evaluated a
//! handler module (bench/serve/handlers/), one request dispatched to it and its response
//! taken, as a worker does per request. What `bench/serve/run.py` measures over HTTP, minus
//! hyper and the kernel.
//!
//! `cargo bench -p kiln-bench --bench serve`

use kiln::Runtime;
use kiln_web::{IncomingRequest, MemoryLoader, Web, WebLoader, WebOptions};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

const TRIVIAL: &str = include_str!("../../../bench/serve/handlers/trivial.js");
const REALISTIC: &str = include_str!("../../../bench/serve/handlers/realistic.js");
const ORDER: &str = include_str!("../../../bench/serve/order.json");

/// A runtime that evaluated `handler`, as a warm worker instance holds it.
fn warm(handler: &'static str) -> (Runtime, Web) {
    let mut runtime = Runtime::new();
    let web = kiln_web::install(&mut runtime, WebOptions::default());
    let files = MemoryLoader::new([("handler.js", handler)]);
    runtime.set_module_loader(Box::new(WebLoader::new("handler.js", files)));
    runtime.run_module(kiln_web::ENTRY, "").unwrap();
    (runtime, web)
}

/// One request to `path` on the server at 127.0.0.1:8080, as hyper hands it to a worker.
fn request(method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> IncomingRequest {
    let mut all = vec![("host".to_string(), "127.0.0.1:8080".to_string())];
    all.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    IncomingRequest {
        method: method.into(),
        url: format!("http://127.0.0.1:8080{path}"),
        headers: all,
        body: body.as_bytes().to_vec(),
    }
}

/// Dispatch `request` and take its response (which must be a 200): its body's length.
fn serve(runtime: &mut Runtime, web: &Web, request: IncomingRequest) -> usize {
    web.dispatch(runtime, request).unwrap();
    let response = web.take_response().unwrap();
    assert_eq!(response.status, 200);
    response.body.len()
}

#[divan::bench]
fn trivial(bencher: divan::Bencher) {
    let (mut runtime, web) = warm(TRIVIAL);
    bencher.bench_local(|| {
        serve(
            &mut runtime,
            &web,
            request("GET", "/", &[("user-agent", "wrk")], ""),
        )
    });
}

/// A POST of the 1 KB order to `path`, as the benchmark's client sends it.
fn order(path: &str) -> IncomingRequest {
    let length = ORDER.len().to_string();
    let headers = [
        ("content-type", "application/json"),
        ("content-length", length.as_str()),
    ];
    request("POST", path, &headers, ORDER)
}

#[divan::bench]
fn realistic(bencher: divan::Bencher) {
    let (mut runtime, web) = warm(REALISTIC);
    bencher.bench_local(|| serve(&mut runtime, &web, order("/api/orders")));
}

/// The realistic handler with a URL it has not seen before on every request (a query that
/// counts them), so that no parse of it is answered from the last one.
#[divan::bench]
fn realistic_new_url(bencher: divan::Bencher) {
    let (mut runtime, web) = warm(REALISTIC);
    let mut count = 0u64;
    bencher.bench_local(|| {
        count += 1;
        serve(&mut runtime, &web, order(&format!("/api/orders?n={count}")))
    });
}
