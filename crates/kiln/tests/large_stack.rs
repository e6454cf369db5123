//! A runtime whose host promises a large stack (`Runtime::set_large_stack`) compiles
//! everything on the calling thread: scripts, `eval` and `Function` bodies of any size,
//! as deep as the compiler's nesting limit lets through.

use kiln::{HostValue, Outcome, Runtime};

fn on_large_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(Runtime::LARGE_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn large_and_deep_sources_compile_on_the_calling_thread() {
    let result = on_large_stack(|| {
        let mut rt = Runtime::new();
        rt.set_large_stack(true);
        rt.register_async("tools.echo");
        let deep = format!("{}1{}", "[".repeat(900), "]".repeat(900));
        let script = format!(
            "const a = {deep};\n\
             const b = eval('{deep}');\n\
             const c = Function('return {deep}')();\n\
             let depth = 0; for (let x = c; Array.isArray(x); x = x[0]) depth++;\n\
             const echoed = await tools.echo(depth);\n\
             echoed + JSON.stringify(a).length + JSON.stringify(b).length"
        );
        let Outcome::Suspended(calls) = rt.start(&script, "agent.js").unwrap() else {
            panic!("expected a host call")
        };
        assert_eq!(calls[0].args, vec![HostValue::Number(900.0)]);
        rt.resume(calls[0].id, Ok(HostValue::Number(1.0))).unwrap()
    });
    assert_eq!(
        result,
        Outcome::Complete(HostValue::Number(1.0 + 1801.0 * 2.0))
    );
}

#[test]
fn nesting_past_the_limit_is_still_a_syntax_error() {
    let error = on_large_stack(|| {
        let mut rt = Runtime::new();
        rt.set_large_stack(true);
        let deep = format!("{}1{}", "(".repeat(100_000), ")".repeat(100_000));
        rt.run_script(&deep, "deep.js").unwrap_err()
    });
    assert!(error.is_syntax_error(), "{error}");
}
