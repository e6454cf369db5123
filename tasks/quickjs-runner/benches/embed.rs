//! In-process timing for the embedding use, QuickJS-NG side: a runtime and a context
//! (`JS_NewRuntime` / `JS_NewContext`), then `1+1` evaluated in it. Kiln's twin is
//! tasks/bench/benches/embed.rs. Run with `cargo bench --manifest-path tasks/quickjs-runner/Cargo.toml`.

use rquickjs::{Context, Runtime};

fn main() {
    divan::main();
}

#[divan::bench]
fn new_runtime_and_context() -> Context {
    let runtime = Runtime::new().unwrap();
    Context::full(&runtime).unwrap()
}

#[divan::bench]
fn new_runtime_context_eval_1_plus_1() -> i32 {
    let runtime = Runtime::new().unwrap();
    let context = Context::full(&runtime).unwrap();
    context.with(|ctx| ctx.eval::<i32, _>("1+1").unwrap())
}

#[divan::bench]
fn eval_1_plus_1_in_existing_context(bencher: divan::Bencher) {
    let runtime = Runtime::new().unwrap();
    let context = Context::full(&runtime).unwrap();
    bencher.bench_local(|| context.with(|ctx| ctx.eval::<i32, _>("1+1").unwrap()));
}
