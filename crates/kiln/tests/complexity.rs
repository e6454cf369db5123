//! No complexity cliffs: each case runs one operation at size n and at 8n and asserts
//! that the fuel it used grew about 8 times, not 64. Fuel counts the work done
//! (instructions, elements processed, bytes of string storage written, copied or
//! scanned), so a built-in that copies or scans the whole input once per element shows
//! up here as quadratic fuel, whatever the machine's speed.
//!
//! A case is a setup script, run first (its fuel is not counted), and an operation,
//! measured on its own; both see the size as the global `n`. The operation's result
//! at 8n must be what `expect` says, so a case cannot pass by doing nothing.

use kiln::Runtime;

struct Case {
    /// what the case guards
    name: &'static str,
    /// the size of the smaller run
    n: usize,
    /// builds the input (not measured)
    setup: &'static str,
    /// the measured operation; its completion value is checked
    op: &'static str,
    /// the operation's result at 8n (as the REPL prints it), from `n`
    expect: fn(usize) -> String,
}

/// Fuel(8n) / fuel(n) at or above this is superlinear (a linear path gives about 8,
/// a quadratic one about 64).
const MAX_RATIO: f64 = 12.0;

fn fuel_of(case: &Case, n: usize) -> (u64, String) {
    let mut rt = Runtime::new();
    rt.run_script(&format!("var n = {n};"), "size.js")
        .unwrap_or_else(|e| panic!("{}: size: {e:?}", case.name));
    rt.run_script(case.setup, "setup.js")
        .unwrap_or_else(|e| panic!("{}: setup: {e:?}", case.name));
    let result = rt
        .eval(case.op)
        .unwrap_or_else(|e| panic!("{}: operation: {e:?}", case.name));
    (rt.fuel_used(), result)
}

fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    for case in cases {
        let (small, _) = fuel_of(case, case.n);
        let (large, result) = fuel_of(case, case.n * 8);
        assert_eq!(result, (case.expect)(case.n * 8), "{}: result", case.name);
        let ratio = large as f64 / small.max(1) as f64;
        if ratio >= MAX_RATIO {
            failures.push(format!(
                "{}: fuel {small} at n = {}, {large} at 8n (x{ratio:.1})",
                case.name, case.n
            ));
        }
    }
    assert!(failures.is_empty(), "superlinear:\n{}", failures.join("\n"));
}

/// Words, punctuation and spaces: `n` characters of "abc, def; ".
const TEXT: &str = "var text = 'abc, def; '.repeat(n / 10);";

#[test]
fn regular_expressions() {
    check(&[
        Case {
            name: "exec in a loop with lastIndex (a tokenizer) copies no subject per match",
            n: 2_000,
            setup: TEXT,
            op: "var re = /[a-z]+|[,;]|\\s+/g, m, count = 0;
                 while ((m = re.exec(text)) !== null) count += m[0].length;
                 count",
            expect: |n| n.to_string(),
        },
        Case {
            name: "sticky exec in a loop tries one position per call",
            n: 2_000,
            setup: TEXT,
            op: "var re = /([a-z]+)|([,;])|(\\s+)/y, m, count = 0;
                 while ((m = re.exec(text)) !== null) count++;
                 count",
            expect: |n| (n / 10 * 6).to_string(),
        },
        Case {
            name: "global replace with a template",
            n: 2_000,
            setup: TEXT,
            op: "text.replace(/,/g, '$&;').length",
            expect: |n| (n + n / 10).to_string(),
        },
        Case {
            name: "global replace with a function",
            n: 2_000,
            setup: TEXT,
            op: "text.replace(/([a-z])[a-z]*/g, function (w, c) { return c; }).length",
            expect: |n| (n - n / 10 * 4).to_string(),
        },
        Case {
            name: "global match",
            n: 2_000,
            setup: TEXT,
            op: "text.match(/[a-z]+/g).length",
            expect: |n| (n / 10 * 2).to_string(),
        },
        Case {
            name: "matchAll with empty matches",
            n: 2_000,
            setup: TEXT,
            op: "var count = 0; for (var m of text.matchAll(/[a-z]*/g)) count++; count",
            expect: |n| (n / 10 * 6 + 1).to_string(),
        },
        Case {
            name: "split by a regular expression",
            n: 2_000,
            setup: TEXT,
            op: "text.split(/[,;] /).length",
            expect: |n| (n / 10 * 2 + 1).to_string(),
        },
        Case {
            name: "a search for a pattern whose required literal is absent fails at once",
            n: 2_000,
            setup: "var run = 'a'.repeat(n);",
            op: "/a+XY/.test(run) + ',' + /(a+)X/.test(run + 'X')",
            expect: |_| "false,true".to_string(),
        },
        Case {
            name: "a failing ^-anchored test does not retry at every position",
            n: 2_000,
            setup: TEXT,
            op: "var count = 0;
                 for (var i = 0; i < n / 10; i++) if (/^x/.test(text)) count++;
                 count",
            expect: |_| "0".to_string(),
        },
    ]);
}

#[test]
fn arrays() {
    check(&[
        Case {
            name: "a queue: push n, then shift n",
            n: 2_000,
            setup: "",
            op: "var q = [], sum = 0;
                 for (var i = 0; i < n; i++) q.push(i);
                 while (q.length) sum += q.shift();
                 sum",
            expect: |n| (n * (n - 1) / 2).to_string(),
        },
        Case {
            name: "a queue: interleaved push and shift",
            n: 2_000,
            setup: "",
            op: "var q = [0], sum = 0;
                 for (var i = 0; i < n; i++) { q.push(i, i); sum += q.shift(); }
                 sum + q.length",
            expect: |n| ((n / 2 - 1) * (n / 2 - 1) + n + 1).to_string(),
        },
        Case {
            name: "shift on an array with holes",
            n: 2_000,
            setup: "",
            op: "var a = [], count = 0;
                 a.length = n;
                 for (var i = 0; i < n; i += 2) a[i] = i;
                 while (a.length) if (a.shift() === undefined) count++;
                 count",
            expect: |n| (n / 2).to_string(),
        },
        Case {
            name: "unshift one at a time",
            n: 2_000,
            setup: "",
            op: "var a = [];
                 for (var i = 0; i < n; i++) a.unshift(i);
                 a[0] + a.length",
            expect: |n| (n - 1 + n).to_string(),
        },
        Case {
            name: "splice from the front",
            n: 2_000,
            setup: "",
            op: "var a = [];
                 for (var i = 0; i < n; i++) a.push(i);
                 var sum = 0;
                 while (a.length) sum += a.splice(0, 2, 7)[0] + a.splice(0, 1)[0];
                 sum",
            expect: |n| ((n / 2) * (n / 2 - 1) + 7 * n / 2).to_string(),
        },
    ]);
}

#[test]
fn objects_as_maps() {
    check(&[
        Case {
            name: "string-keyed properties added and read on an object used as a map",
            n: 2_000,
            setup: "",
            op: "var o = {}, sum = 0;
                 for (var i = 0; i < n; i++) o['k' + i] = i;
                 for (var i = 0; i < n; i++) sum += o['k' + i];
                 sum",
            expect: |n| (n * (n - 1) / 2).to_string(),
        },
        Case {
            name: "for-in and Object.keys over a dictionary-mode object",
            n: 2_000,
            setup: "var o = {}; for (var i = 0; i < n; i++) o['k' + i] = i;",
            op: "var count = Object.keys(o).length;
                 for (var k in o) count++;
                 count",
            expect: |n| (2 * n).to_string(),
        },
        Case {
            name: "for-in over an object with sparse integer keys",
            n: 2_000,
            setup: "var o = {}; for (var i = 0; i < n; i++) o[i * 3] = i;",
            op: "var count = 0; for (var k in o) count++; count",
            expect: |n| n.to_string(),
        },
        Case {
            name: "adding and deleting keys (churn) on an object used as a map",
            n: 2_000,
            setup: "",
            op: "var o = {};
                 for (var i = 0; i < n; i++) { o['k' + i] = i; if (i >= 10) delete o['k' + (i - 10)]; }
                 Object.keys(o).length",
            expect: |_| "10".to_string(),
        },
    ]);
}

#[test]
fn string_search() {
    check(&[
        Case {
            name: "indexOf with a periodic needle in one-byte text",
            n: 4_000,
            setup: "var hay = 'a'.repeat(n), needle = 'a'.repeat(n / 2) + 'b';",
            op: "hay.indexOf(needle) + hay.indexOf('a'.repeat(n / 2), 7)",
            expect: |_| "6".to_string(),
        },
        Case {
            name: "includes with a periodic needle in two-byte text",
            n: 4_000,
            setup: "var hay = '\\u4e00'.repeat(n), needle = '\\u4e00'.repeat(n / 2) + 'b';",
            op: "hay.includes(needle) + ',' + hay.indexOf(needle.slice(1, -1), 3)",
            expect: |_| "false,3".to_string(),
        },
        Case {
            name: "lastIndexOf with a periodic needle, one-byte and two-byte",
            n: 4_000,
            setup: "var hay = 'a'.repeat(n), needle = 'a'.repeat(n / 2) + 'b';
                    var wide = '\\u4e00'.repeat(n), wideNeedle = '\\u4e00'.repeat(n / 2) + 'b';",
            op: "hay.lastIndexOf(needle) + wide.lastIndexOf(wideNeedle)",
            expect: |_| "-2".to_string(),
        },
        Case {
            name: "split and replaceAll by a string",
            n: 2_000,
            setup: TEXT,
            op: "text.split(', ').length + text.replaceAll('; ', ';').length",
            expect: |n| (n / 10 + 1 + n - n / 10).to_string(),
        },
    ]);
}

#[test]
fn substrings() {
    check(&[
        Case {
            name: "a tokenizer that cuts each token off the front of its input",
            n: 2_000,
            setup: TEXT,
            op: "var s = text, count = 0;
                 while (s.length) { var m = /^[a-z]+|^[,;]|^\\s+/.exec(s); s = s.slice(m[0].length); count++; }
                 count",
            expect: |n| (n / 10 * 6).to_string(),
        },
        Case {
            name: "substring and substr of the rest, one unit at a time",
            n: 2_000,
            setup: TEXT,
            op: "var s = text, t = text, count = 0;
                 while (s.length) { s = s.substring(1); t = t.substr(1); count += t.length - s.length; }
                 count",
            expect: |_| "0".to_string(),
        },
    ]);
}

/// Paths that were linear (or n log n) already when these tests were written: they
/// stay that way.
#[test]
fn other_bulk_operations() {
    check(&[
        Case {
            name: "JSON.stringify and JSON.parse of an array of records",
            n: 500,
            setup: "var a = []; for (var i = 0; i < n; i++) a.push({ id: i, name: 'n' + i, tags: ['x', 'y'] });",
            op: "JSON.parse(JSON.stringify(a)).length",
            expect: |n| n.to_string(),
        },
        Case {
            name: "Map growth and delete churn, then iteration",
            n: 2_000,
            setup: "",
            op: "var m = new Map(), count = 0;
                 for (var i = 0; i < n; i++) { m.set('k' + i, i); if (i >= 10) m.delete('k' + (i - 10)); }
                 for (var e of m) count++;
                 for (var i = 0; i < n; i++) { m.set(i, i); m.delete(i); for (var e of m) break; }
                 count + m.size",
            expect: |_| "20".to_string(),
        },
        Case {
            name: "Set growth, Array.from and spread of it",
            n: 2_000,
            setup: "",
            op: "var s = new Set(); for (var i = 0; i < n; i++) s.add(i);
                 Array.from(s).length + [...s].length",
            expect: |n| (2 * n).to_string(),
        },
        Case {
            name: "sort with a comparator, the default sort, and a holey array",
            n: 2_000,
            setup: "var a = [], h = []; h.length = n;
                    for (var i = 0; i < n; i++) a.push((i * 7919) % n);
                    for (var i = 0; i < n; i += 2) h[i] = (i * 7919) % n;",
            op: "a.slice().sort(function (x, y) { return x - y; })[n - 1]
                 + a.slice().sort()[0] + h.sort()[0]",
            expect: |n| (n - 1).to_string(),
        },
        Case {
            name: "join, indexOf and includes over an array",
            n: 2_000,
            setup: "var a = []; for (var i = 0; i < n; i++) a.push(i);",
            op: "a.join(',').length > 0 && a.indexOf(-1) === -1 && !a.includes(-1)",
            expect: |_| "true".to_string(),
        },
        Case {
            name: "building a string with += and template literals, read at the end",
            n: 2_000,
            setup: "",
            op: "var s = '', t = '';
                 for (var i = 0; i < n; i++) { s += 'ab'; t = `${t}x`; }
                 s.length + t.length + s.charCodeAt(0)",
            expect: |n| (3 * n + 97).to_string(),
        },
        Case {
            name: "repeat and padStart",
            n: 2_000,
            setup: "",
            op: "'ab'.repeat(n).length + 'x'.padStart(n, 'ab').length",
            expect: |n| (3 * n).to_string(),
        },
    ]);
}
