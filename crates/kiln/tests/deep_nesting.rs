//! Sources that nest deeply without brackets: a hundred thousand unary operators,
//! assignments, arrows, `else if` links, `new`, `?:`, `await` or `yield`, and a million
//! brackets hidden where a character scan would not count them. Each ends with a
//! `SyntaxError` (as a script, and caught from `eval`), never a native stack overflow;
//! the same shapes a thousand levels deep or less run to the right result. Everything
//! runs on a thread with the 8 MiB stack a program's main thread has.

use kiln::{ErrorKind, HostValue, Runtime};

/// The stack of a program's main thread on Linux (`ulimit -s`).
const MAIN_THREAD_STACK: usize = 8 << 20;

/// Runs `f` on a thread with the main thread's stack.
fn on_main_sized_thread(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(MAIN_THREAD_STACK)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

/// `open` `n` times, then `middle`, then `close` `n` times.
fn nest(open: &str, middle: &str, close: &str, n: usize) -> String {
    format!("{}{middle}{}", open.repeat(n), close.repeat(n))
}

/// Shapes that nest one level per repetition, as (name, source of `n` levels).
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    vec![
        (
            "!",
            format!("var x = 1; var r = {};", nest("!", "x", "", n)),
        ),
        (
            "- -",
            format!("var x = 2; var r = {};", nest("- ", "x", "", n)),
        ),
        (
            "~",
            format!("var x = 5; var r = {};", nest("~", "x", "", n)),
        ),
        (
            "typeof",
            format!("var x = 1; var r = {};", nest("typeof ", "x", "", n)),
        ),
        ("void", format!("var r = {};", nest("void ", "0", "", n))),
        (
            "a=a=",
            format!("var a; var r = {};", nest("a=", "1", "", n)),
        ),
        (
            "else if",
            format!(
                "var x = {}, r; if (x === 0) r = 0;{}",
                n - 1,
                (1..n)
                    .map(|k| format!(" else if (x === {k}) r = {k};"))
                    .collect::<String>()
            ),
        ),
        (
            "x=>x=>",
            format!(
                "var f = {}; var r = f; for (var i = 0; i < {n}; i++) r = r(i);",
                nest("x=>", "1", "", n)
            ),
        ),
        (
            "template",
            format!("var r = {};", nest("`${", "1", "}`", n)),
        ),
        (
            "new new",
            format!(
                "function X() {{ return X; }} var r = {} === X;",
                nest("new ", "X", "", n)
            ),
        ),
        (
            "a?b:",
            format!(
                "var a = false, b = 'b', c = 'c'; var r = {};",
                nest("a?b:", "c", "", n)
            ),
        ),
        (
            "await await",
            format!(
                "var r; (async () => {{ r = {}; }})();",
                nest("await ", "1", "", n)
            ),
        ),
        (
            "yield yield",
            format!(
                "function* g() {{ {}; }} var it = g(), v = it.next().value, steps = 1; \
                 while (!it.next(steps).done) steps++; var r = [v, steps].join();",
                nest("yield ", "1", "", n)
            ),
        ),
    ]
}

/// Each shape's `r` when it nests 400 deep, and the column of the SyntaxError when it
/// nests 100,000 deep (the operator or keyword past the pre-scan's limit of 10,000 on one
/// path; the thousandth bracket for templates).
const OUTCOMES: &[(&str, &str, u32)] = &[
    ("!", "true", 10019),
    ("- -", "2", 20018),
    ("~", "5", 10019),
    ("typeof", "string", 70013),
    ("void", "undefined", 50004),
    ("a=a=", "1", 20015),
    ("else if", "399", 307714),
    ("x=>x=>", "1", 15008),
    ("template", "1", 3010),
    ("new new", "true", 40032),
    ("a?b:", "c", 20041),
    ("await await", "1", 60009),
    ("yield yield", "1,400", 60011),
];

fn outcome(name: &str) -> (&'static str, u32) {
    let &(_, value, column) = OUTCOMES
        .iter()
        .find(|(n, ..)| *n == name)
        .expect("every shape has an outcome");
    (value, column)
}

#[test]
fn a_hundred_thousand_levels_without_brackets_are_a_syntax_error() {
    on_main_sized_thread(|| {
        for (name, source) in shapes(100_000) {
            let (_, column) = outcome(name);
            let mut rt = Runtime::new();
            let e = rt.run_script(&source, "deep.js").unwrap_err();
            assert_eq!(
                (e.kind, e.summary),
                (
                    ErrorKind::Syntax,
                    format!("SyntaxError: nesting too deep (deep.js:1:{column})")
                ),
                "{name}"
            );
            // the same source given to eval: a SyntaxError the program catches
            rt.set_global("source", &HostValue::String(source)).unwrap();
            let caught = rt
                .eval("try { eval(source); 'ran' } catch (e) { e.name + ': ' + e.message }")
                .unwrap();
            assert_eq!(
                caught,
                format!("SyntaxError: nesting too deep (<eval>:1:{column})"),
                "{name}"
            );
        }
    });
}

#[test]
fn the_same_shapes_four_hundred_levels_deep_run() {
    on_main_sized_thread(|| {
        for (name, source) in shapes(400) {
            let mut rt = Runtime::new();
            if let Err(e) = rt.run_script(&source, "deep.js") {
                panic!("{name}: {}", e.summary);
            }
            assert_eq!(rt.eval("String(r)").unwrap(), outcome(name).0, "{name}");
        }
    });
}

/// Brackets that a scan of characters would not see, a million levels deep: inside
/// regular expressions, behind HTML-like comments, after a `//` comment ended by `\r`, in
/// a string continued across CRLF, and an `else if` chain whose links end with `;`.
/// Each is refused at the bracket past the thousandth (the `else` past the ten
/// thousandth), at the line and column given.
#[test]
fn a_million_hidden_brackets_are_a_syntax_error() {
    on_main_sized_thread(|| {
        let n = 1_000_000;
        let sources = [
            (
                format!("var x = {};", nest("(/)/,", "1", ")", n)),
                (1, 5009),
            ),
            (
                format!("var x = {};", nest("(\n<!-- )\n", "1", ")", n)),
                (2001, 1),
            ),
            (
                format!("var x = //\r{};", nest("(", "1", ")", n)),
                (2, 1001),
            ),
            (
                format!("var x = {};", nest("('\\\r\n)'+", "1", ")", n)),
                (1001, 4),
            ),
            (
                format!("var a, x; if (a) x;{}", " else if (a) x;".repeat(n)),
                (1, 150_011),
            ),
        ];
        for (source, (line, column)) in &sources {
            let mut rt = Runtime::new();
            let e = rt.run_script(source, "hidden.js").unwrap_err();
            assert_eq!(
                (e.kind, e.summary),
                (
                    ErrorKind::Syntax,
                    format!("SyntaxError: nesting too deep (hidden.js:{line}:{column})")
                ),
                "{:?}",
                &source[..40]
            );
        }
    });
}
