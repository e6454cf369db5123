// `with` puts an object's properties in scope.
var o = { p: 1, q() { return this === o; } };
with (o) {
  print(p); // expect: 1
  p = 5;
  print(q()); // expect: true
}
print(o.p); // expect: 5

var p = "global";
with ({}) { print(p); } // expect: global

with ([1, 2]) { print(typeof values + " " + length); } // expect: undefined 2

function inFunction(obj) {
  var local = "local";
  with (obj) { return local + " " + x; }
}
print(inFunction({ x: "x" })); // expect: local x
print(inFunction({ x: "x", local: "shadowed" })); // expect: shadowed x

function closures(obj) {
  with (obj) { return () => a; }
}
var get = closures({ a: 1 });
print(get()); // expect: 1

var target = { v: 1 };
with (target) { var v = 2; }
print(target.v + " " + typeof v); // expect: 2 undefined

var unscopable = { hidden: "own" };
unscopable[Symbol.unscopables] = { hidden: true };
var hidden = "outer";
with (unscopable) { print(hidden); } // expect: outer

var deleted = { d: 1 };
with (deleted) { print(delete d); } // expect: true
print("d" in deleted); // expect: false

var counter = { n: 0 };
with (counter) { n++; n += 2; }
print(counter.n); // expect: 3

outer: with ({ x: 1 }) { for (;;) { break outer; } }
print("after break"); // expect: after break

// A reference into a `with` object is resolved before the right-hand side runs, and its
// binding object is asked again (HasProperty) when read or written.
function resolvedFirst() {
  var x = 0;
  var scope = { x: 1 };
  with (scope) { x = (delete scope.x, 2); }
  return scope.x + " " + x;
}
print(resolvedFirst()); // expect: 2 0

var traps = [];
var env = new Proxy({ p: 1 }, {
  has(t, k) { traps.push("has:" + String(k)); return k in t; },
  get(t, k) { traps.push("get:" + String(k)); return t[k]; },
});
with (env) { p; }
print(traps.join()); // expect: has:p,get:Symbol(Symbol.unscopables),has:p,get:p

var gone = { get x() { delete this.x; return 2; } };
with (gone) {
  (function () {
    "use strict";
    try { x += 1; } catch (e) { print(e.constructor.name); } // expect: ReferenceError
  })();
}
