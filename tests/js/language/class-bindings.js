// A class's own name inside its body is a separate, immutable binding.
class C {
  static self() { return C; }
  static assign() { C = 1; }
}
var D = C;
C = null;
print(D.self() === D); // expect: true
try { D.assign(); } catch (e) { print(e.constructor.name); } // expect: TypeError

var E = class F {
  static g() { try { F = 1; } catch (e) { return e.constructor.name; } return "none"; }
};
print(E.g()); // expect: TypeError

try { class X extends X {} } catch (e) { print(e.constructor.name); } // expect: ReferenceError

class Y { static s = Y.name; }
print(Y.s); // expect: Y

// Computed keys name anonymous functions.
print(({ ["a" + "b"]: function () {} }).ab.name); // expect: ab
var sym = Symbol("desc");
print(({ [sym]: function () {} })[sym].name); // expect: [desc]

// Parameters are in their TDZ until initialised.
function tdz(a = b, b) {}
try { tdz(); } catch (e) { print(e.constructor.name); } // expect: ReferenceError
function later(a, b = a + 1) { return b; }
print(later(1)); // expect: 2

// Destructuring assignment evaluates member targets before fetching values.
var log = [];
var holder = { get t() { log.push("target"); return {}; } };
({ x: holder.t.y } = { get x() { log.push("get x"); return 1; } });
print(log.join()); // expect: target,get x
log = [];
var iterable = { [Symbol.iterator]() { return { next() { log.push("next"); return { done: false, value: 1 }; }, return() { log.push("return"); return {}; } }; } };
[holder.t.y] = iterable;
print(log.join()); // expect: target,next,return

// `eval?.()` is an indirect eval.
const shadowed = "global";
function optionalEval() { const shadowed = "local"; return eval?.("shadowed"); }
print(optionalEval()); // expect: global
// A static method's source text leaves out `static` and what follows it up to the method.
class StaticText { static /* c */ async * gen() {} static get g() { return 1; } }
print(StaticText.gen.toString(), Object.getOwnPropertyDescriptor(StaticText, "g").get.toString()); // expect: async * gen() {} get g() { return 1; }
