//! The guest's `console` (`Runtime::set_console`): node's formatting, one line per
//! call, each with its level. The expected lines are node 20's output for the same
//! calls (`util.inspect` written on one line).

use kiln::{ConsoleLevel, ErrorKind, HostValue, Limits, Options, Outcome, Runtime};
use std::cell::RefCell;
use std::rc::Rc;

type Lines = Rc<RefCell<Vec<(ConsoleLevel, String)>>>;

fn console_runtime(rt: &mut Runtime) -> Lines {
    let lines: Lines = Rc::default();
    let sink = lines.clone();
    rt.set_console(move |level, line| sink.borrow_mut().push((level, line.to_string())));
    lines
}

/// The lines `source` logs, in a runtime with a console.
fn logged(source: &str) -> Vec<String> {
    let mut rt = Runtime::new();
    let lines = console_runtime(&mut rt);
    if let Err(e) = rt.start(source, "t.js") {
        panic!("{source}: {e}");
    }
    lines.borrow().iter().map(|(_, l)| l.clone()).collect()
}

#[test]
fn substitutions_follow_node() {
    let cases = [
        (
            "console.log('%s is %d years and %i, %f', 'Bob', 42.5, 42.5, '3.25abc')",
            "Bob is 42.5 years and 42, 3.25",
        ),
        (
            "console.log('%O and %j', {a: [1]}, {a: [1]})",
            r#"{ a: [ 1 ] } and {"a":[1]}"#,
        ),
        (
            "console.log('100%% sure', 'extra', {x: 1})",
            "100% sure extra { x: 1 }",
        ),
        ("console.log('%s', {a: {b: 1}}, '%s')", "{ a: [Object] } %s"),
        (
            "console.log('%d %d %s %s %i', '12', {}, 12n, Symbol('q'), 7n)",
            "12 NaN 12n Symbol(q) 7n",
        ),
        ("console.log('%c styled', 'color: red')", " styled"),
        ("console.log('a%', 1, '%z')", "a% 1 %z"),
        ("console.log()", ""),
        (
            "console.log('%s', null, undefined, 'x', -0)",
            "null undefined x -0",
        ),
        ("console.log(5, '%s', 'x')", "5 %s x"),
        ("const o = {}; o.o = o; console.log('%j', o)", "[Circular]"),
        ("console.log('%j %j', undefined, 'q')", r#"undefined "q""#),
        ("console.log('%d', { valueOf() { return 41 + 1 } })", "42"),
    ];
    for (source, line) in cases {
        assert_eq!(logged(source), [line], "{source}");
    }
}

#[test]
fn values_are_inspected_like_node() {
    let cases = [
        (
            "console.log([1, 'a', [2, [3, [4]]]], { a: { b: { c: { d: 1 } } } })",
            "[ 1, 'a', [ 2, [ 3, [Array] ] ] ] { a: { b: { c: [Object] } } }",
        ),
        (
            "console.log(new Map([['k', { v: [1] }]]), new Set(['x']))",
            "Map(1) { 'k' => { v: [ 1 ] } } Set(1) { 'x' }",
        ),
        (
            "console.log({ 'a-b': 1, [Symbol('k')]: 2, f() {}, g: async () => 1, h: class A {} })",
            "{ 'a-b': 1, f: [Function: f], g: [AsyncFunction: g], h: [class A], [Symbol(k)]: 2 }",
        ),
        (
            "console.log(new Uint8Array([1, 2]), new ArrayBuffer(2), [ , 1])",
            "Uint8Array(2) [ 1, 2 ] ArrayBuffer { [Uint8Contents]: <00 00>, byteLength: 2 } [ <1 empty item>, 1 ]",
        ),
        (
            "console.log(new (class Point { constructor() { this.x = 1 } }), Object.create(null))",
            "Point { x: 1 } [Object: null prototype] {}",
        ),
        (
            r#"console.log({ s: "it's", n: 'line\nbreak', e: '' })"#,
            r#"{ s: "it's", n: 'line\nbreak', e: '' }"#,
        ),
        (
            "const c = { name: 'c' }; c.self = c; console.log(c)",
            "<ref *1> { name: 'c', self: [Circular *1] }",
        ),
        (
            "console.log(1n, -0, NaN, [undefined, null], true)",
            "1n -0 NaN [ undefined, null ] true",
        ),
        (
            "console.log([new Error('boom').message], { get a() { return 1 } })",
            "[ 'boom' ] { a: [Getter] }",
        ),
    ];
    for (source, line) in cases {
        assert_eq!(logged(source), [line], "{source}");
    }
}

#[test]
fn each_method_has_its_level() {
    let mut rt = Runtime::new();
    let lines = console_runtime(&mut rt);
    rt.start(
        "console.info('i'); console.debug('d'); console.warn('w'); console.error('e');
         console.trace('t'); console.dir('s'); const log = console.log; log('detached')",
        "t.js",
    )
    .unwrap();
    use ConsoleLevel::*;
    let expected = [
        (Info, "i"),
        (Debug, "d"),
        (Warn, "w"),
        (Error, "e"),
        (Log, "t"),
        (Log, "'s'"),
        (Log, "detached"),
    ];
    let expected: Vec<(ConsoleLevel, String)> =
        expected.iter().map(|&(l, s)| (l, s.to_string())).collect();
    assert_eq!(*lines.borrow(), expected);
}

#[test]
fn without_set_console_there_is_no_console() {
    let mut rt = Runtime::new();
    let v = rt.start("typeof console", "t.js").unwrap();
    assert_eq!(v, Outcome::Complete(HostValue::from("undefined")));
}

#[test]
fn logging_is_metered() {
    let mut rt = Runtime::with_options(Options {
        limits: Limits {
            fuel: Some(100_000),
            ..Limits::default()
        },
        ..Options::default()
    })
    .unwrap();
    let lines = console_runtime(&mut rt);
    let e = rt
        .start(
            "const s = 'x'.repeat(1 << 20); while (true) console.log(s)",
            "t.js",
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfFuel);
    // each megabyte line costs about 16,000 units
    assert!(lines.borrow().len() < 10, "{} lines", lines.borrow().len());
}

#[test]
fn a_huge_value_is_described_in_bounded_time() {
    // 100 × 100 × 100 entries would be a million; one description stops at 10,000
    let lines = logged(
        "const row = Array.from({ length: 100 }, (_, i) => i);
         const table = Array.from({ length: 100 }, () => Array.from({ length: 100 }, () => row));
         console.log('%o', table)",
    );
    assert!(
        lines[0].ends_with("99 ], ... ], ... ]"),
        "{}",
        &lines[0][lines[0].len() - 40..]
    );
    assert!(lines[0].len() < 100_000, "{} bytes", lines[0].len());
}

#[test]
fn a_restored_runtime_logs_once_the_host_sets_the_console_again() {
    let mut rt = Runtime::new();
    let _ = console_runtime(&mut rt);
    rt.register_async("wait");
    let script = "const log = console.log; wait().then(v => { log('got', v); console.warn('done'); return v })";
    let Ok(Outcome::Suspended(calls)) = rt.start(script, "t.js") else {
        panic!("expected to suspend");
    };
    let bytes = rt.snapshot(None).unwrap();
    let snapshot = kiln::snapshot::Snapshot::open(&bytes, None).unwrap();
    let mut restored = Runtime::restore(&snapshot, Options::default()).unwrap();
    restored.register_async("wait");
    let lines = console_runtime(&mut restored);
    let done = restored
        .resume(calls[0].id, Ok(HostValue::from(7)))
        .unwrap();
    assert_eq!(done, Outcome::Complete(HostValue::from(7)));
    assert_eq!(
        *lines.borrow(),
        [
            (ConsoleLevel::Log, "got 7".to_string()),
            (ConsoleLevel::Warn, "done".to_string())
        ]
    );
}
