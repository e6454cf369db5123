// The `this` of a call: undefined when the callee is not a property (the global object
// for a sloppy callee), the object when it is one, however the callee is written.
var o = {
  name: "o", // a sloppy method: an undefined `this` is the global object
  f() { return this === undefined ? "undefined" : this === globalThis ? "global" : this.name; },
};
function sloppy() { return this === globalThis; }
function strict() { "use strict"; return this; }
var f = o.f;
print(f(), o.f(), (o.f)(), (0, o.f)(), o["f"]()); // expect: global o o global o
print(sloppy(), strict(), f?.(), o.f?.(), (o?.f)()); // expect: true undefined global o o
print([1, 2].map(function () { return this; }, "t").join()); // expect: t,t
var g = (x) => x + 1;
print(g(1), ((a, b) => a * b)(3, 4)); // expect: 2 12
var e = eval;
print(e("typeof this"), eval("1 + 1")); // expect: object 2
function tag(s) { return this === undefined; }
print(tag`x`); // expect: false
