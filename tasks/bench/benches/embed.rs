//! In-process timing for the embedding use: a Kiln runtime (with its realm) created,
//! then `1+1` evaluated in it. QuickJS-NG's twin (`JS_NewRuntime`/`JS_NewContext`
//! through rquickjs) is tasks/quickjs-runner/benches/embed.rs, kept out of this
//! workspace so it never compiles C.
//!
//! `cargo bench -p kiln-bench --bench embed` (divan also reports each benchmark's heap
//! allocations: the counting allocator below adds a few nanoseconds to each).

use kiln::Runtime;

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

#[divan::bench]
fn new_runtime() -> Runtime {
    Runtime::new()
}

/// A runtime created and dropped: what a host that makes one per execution pays for it.
#[divan::bench]
fn new_runtime_and_drop() {
    drop(divan::black_box(Runtime::new()));
}

#[divan::bench]
fn new_runtime_eval_1_plus_1() -> String {
    let mut runtime = Runtime::new();
    runtime.eval("1+1").unwrap()
}

#[divan::bench]
fn eval_1_plus_1_in_existing_runtime(bencher: divan::Bencher) {
    let mut runtime = Runtime::new();
    bencher.bench_local(|| runtime.eval("1+1").unwrap());
}
