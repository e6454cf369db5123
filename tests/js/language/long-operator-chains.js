// Left-deep chains of binary and logical operators thousands of links long (generated
// code, minified bundles) compile and run; the compiler walks them with a loop. They were
// refused past a thousand links.
const n = 5000;
function terms(count, term) {
  return Array.from({ length: count }, (_, i) => term(i));
}

// A string concatenation of 5,000 terms.
const text = eval(terms(n, (i) => (i % 2 ? '"b"' : '"a"')).join(" + "));
print(text.length, text === "ab".repeat(n / 2));
// expect: 5000 true

// Numbers, operators of different precedence: each group adds 6 - 1 - 2 + 8 - 1 = 10.
print(eval("1" + " + 2 * 3 - 4 / 2 ** 2 - 10 % 4 + (1 << 3) - 1".repeat(900)));
// expect: 9001
print(eval("0" + " | 1 << 2 ^ 3 & 6".repeat(1500)));
// expect: 6
print(eval("2 ** 3 ** 2" + " - 1".repeat(4000)));
// expect: -3488
// Comparisons coerce the running boolean: true < 2, true == 1 ...
print(eval("1" + " < 2".repeat(3000)), eval("1" + " == 1".repeat(3000)));
// expect: true true
print(eval("0" + " - 1".repeat(4999)), eval("1" + " * 1.5".repeat(20)));
// expect: -4999 3325.256730079651

// `||`, `&&`, `??` of 5,000 terms: the calls show where each chain stops.
let calls = [];
function t(i, value) {
  calls.push(i);
  return value;
}
function run(source) {
  calls = [];
  const value = eval(source);
  return [String(value), calls.length, calls[calls.length - 1]].join(" ");
}
print(run(terms(n, (i) => `t(${i}, ${i === 3000 ? "'found'" : "0"})`).join(" || ")));
// expect: found 3001 3000
print(run(terms(n, (i) => `t(${i}, ${i === 2500 ? '""' : "1"})`).join(" && ")));
// expect:  2501 2500
print(run(terms(n, (i) => `t(${i}, ${i === 4000 ? "0" : i % 2 ? "null" : "undefined"})`).join(" ?? ")));
// expect: 0 4001 4000
print(run(terms(n, (i) => `t(${i}, 0)`).join(" || ")));
// expect: 0 5000 4999
// `&&` links then `||` links in one chain, `(((a && b) && c) || d) || e`: the `&&` run
// stops at its falsy term, then the `||` run at its truthy one.
const mixed =
  terms(2500, (i) => `t(${i}, ${i === 1000 ? 0 : 1})`).join(" && ") +
  " || " +
  terms(2500, (i) => `t(${2500 + i}, ${i === 2000 ? "'or'" : "null"})`).join(" || ");
print(run(mixed));
// expect: or 3002 4500
// The same chains as conditions (jumps, no values).
print(run(`if (${mixed}) "taken"; else "not taken"`));
// expect: taken 3002 4500
print(run(`if (!(${terms(n, (i) => `t(${i}, ${i === 4321})`).join(" || ")})) 1; else 2`));
// expect: 2 4322 4321
print(run(`while (${terms(n, (i) => `t(${i}, ${i !== 17})`).join(" && ")}) break; "done"`));
// expect: done 18 17
// In a function's tail position.
print(run(`(function () { return ${terms(n, (i) => `t(${i}, ${i === 10})`).join(" || ")}; })()`));
// expect: true 11 10

// A chain past the pre-scan's limit of 10,000 operators is a SyntaxError, not a crash.
try {
  eval("a" + " + a".repeat(10001));
} catch (e) {
  print(e.name, e.message);
}
// expect: SyntaxError nesting too deep (<eval>:1:40003)
