// Property references: a compound assignment or update converts a computed key once, and
// a `super` reference takes its base before the key is converted.
var conversions = 0;
var key = { toString() { conversions++; return "p"; } };
var o = { p: 1 };
o[key] += 1;
o[key]++;
print(o.p, conversions); // expect: 3 2

var arr = [1, 2];
var i = 1;
arr[i] *= 10;
arr[i]--;
print(arr.join(), i); // expect: 1,19 1

var proto = { p: 1 };
var other = { p: -1 };
var obj = {
  __proto__: proto,
  read() { return super[switching]; },
  add() { return super[switching] += 1; },
};
var switching = { toString() { Object.setPrototypeOf(obj, other); return "p"; } };
print(obj.read()); // expect: 1
Object.setPrototypeOf(obj, proto);
print(obj.add(), obj.hasOwnProperty("p")); // expect: 2 true

// A home object without a prototype: reading `super.x` is a TypeError.
class Null extends null {
  m() { return super.x; }
}
try { Null.prototype.m(); } catch (e) { print(e.constructor.name); } // expect: TypeError

// Sloppy code ignores a failed `super.x = v`; strict code throws.
var frozen = {
  sloppy() { Object.freeze(this); super.y = 1; return "ignored"; },
};
print(frozen.sloppy()); // expect: ignored
var strictFrozen = {
  strict() { "use strict"; Object.freeze(this); super.y = 1; },
};
try { strictFrozen.strict(); } catch (e) { print(e.constructor.name); } // expect: TypeError

// `super[expr]` in a derived constructor checks `this` before evaluating expr.
class Base { constructor() { throw new Error("base ran"); } }
class Derived extends Base { constructor() { super[super()] = 0; } }
try { new Derived(); } catch (e) { print(e.constructor.name); } // expect: ReferenceError
// A parenthesised optional chain called keeps its `this`.
const chained = { b() { return this.v; }, v: 42 };
print((chained?.b)(), (chained?.b)?.(), (undefined?.b)?.()); // expect: 42 42 undefined
