// Function.prototype.call and apply, which a Call instruction runs in the interpreter loop
// (the callee's frame takes its arguments in place) instead of through the natives.
function show(a, b, c) {
  "use strict";
  const t = this === undefined ? "u" : this === null ? "n" : typeof this === "object" ? this.n : this;
  return [t, a, b, c, arguments.length].join(",");
}
const o = { n: "o" };
print(show.call(o, 1, 2, 3), show.call(o), show.call()); // expect: o,1,2,3,3 o,,,,0 u,,,,0
print(show.apply(o, [4, 5]), show.apply(o), show.apply(o, null)); // expect: o,4,5,,2 o,,,,0 o,,,,0
print(show.apply(undefined, { length: 2, 0: "x", 1: "y" })); // expect: u,x,y,,2
print(show.call.call(show, o, 7), Function.prototype.call.apply(show, [o, 8, 9])); // expect: o,7,,,1 o,8,9,,2
print(show.apply.call(show, o, [1]), Reflect.apply(show, o, ["r"])); // expect: o,1,,,1 o,r,,,1

// Arguments objects, long lists, natives and bound functions as targets.
function sum() {
  let s = 0;
  for (let i = 0; i < arguments.length; i++) s += arguments[i];
  return s;
}
function forward() { return sum.apply(this, arguments); }
const big = Array.from({ length: 1000 }, (_, i) => i);
print(forward(1, 2, 3), sum.apply(null, big), Math.max.apply(Math, big)); // expect: 6 499500 999
print(String.fromCharCode.apply(null, [72, 105]), sum.bind(null, 10).apply(null, [1])); // expect: Hi 11
function mapped(a, b) { a = "changed"; return [].slice.call(arguments).join(); }
print(mapped(1, 2)); // expect: changed,2
function mappedApply(a) { a = 5; return sum.apply(null, arguments); }
print(mappedApply(1, 2)); // expect: 7

// Getters on an array-like run in order; the values they return survive a collection.
const log = [];
const listWithGetters = {
  get length() { log.push("length"); return 2; },
  get 0() { log.push(0); return { v: "g0" }; },
  get 1() { log.push(1); return { v: "g1" }; },
};
print(function () { return [...arguments].map((x) => x.v).join(); }.apply(null, listWithGetters), log.join()); // expect: g0,g1 length,0,1

// Deep recursion through call and apply runs on the engine's frames.
function viaCall(n) { return n === 0 ? 0 : 1 + viaCall.call(null, n - 1); }
function viaApply(n) { return n === 0 ? 0 : 1 + viaApply.apply(null, [n - 1]); }
print(viaCall(5000), viaApply(5000)); // expect: 5000 5000
const tail = (function () {
  "use strict";
  function t(n) { return n === 0 ? "done" : t.call(null, n - 1); }
  return t(200000);
})();
print(tail); // expect: done

// Errors: the same TypeErrors as the natives give.
const err = (f) => { try { f(); } catch (e) { return e.constructor.name + ": " + e.message; } };
print(err(() => show.apply(o, 3))); // expect: TypeError: CreateListFromArrayLike called on non-object
class C { constructor() { this.v = 1; } }
print(err(() => C.call({}))); // expect: TypeError: Class constructor C cannot be invoked without 'new'
print(err(() => C.apply({}, []))); // expect: TypeError: Class constructor C cannot be invoked without 'new'
print(err(() => Function.prototype.call.call(1))); // expect: TypeError: Function.prototype.call was called on a non-function
print(err(() => Function.prototype.apply.call({}, null, []))); // expect: TypeError: Function.prototype.apply was called on a non-function

// Generators and async functions as targets.
function* gen(a) { yield a; }
print(gen.call(null, 5).next().value, gen.apply(null, [6]).next().value); // expect: 5 6
async function twice(a) { return a * 2; }
twice.apply(null, [21]).then((v) => print("async", v)); // expect: async 42
