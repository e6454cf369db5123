// Declarations of global code and global eval code: every check runs before any binding
// is made; eval makes deletable bindings; a function redefines a configurable property.
let taken;
try { (0, eval)("var first; function taken() {}"); } catch (e) { print(e.constructor.name); } // expect: SyntaxError
print(typeof first, "first" in globalThis); // expect: undefined false

(0, eval)("var fromEval; function fnFromEval() {}");
var d = Object.getOwnPropertyDescriptor(globalThis, "fromEval");
print(d.configurable, d.enumerable, d.writable); // expect: true true true
print(delete globalThis.fnFromEval, typeof fnFromEval); // expect: true undefined

Object.defineProperty(globalThis, "readOnly", { value: 0, configurable: true });
(0, eval)("function readOnly() {}");
d = Object.getOwnPropertyDescriptor(globalThis, "readOnly");
print(typeof readOnly, d.enumerable, d.writable, d.configurable); // expect: function true true true

Object.defineProperty(globalThis, "fixed", { value: 0, configurable: false, writable: false });
try { (0, eval)("var before; function fixed() {}"); } catch (e) { print(e.constructor.name); } // expect: TypeError
print("before" in globalThis); // expect: false

Object.preventExtensions(globalThis);
try { (0, eval)("var brandNew;"); } catch (e) { print(e.constructor.name); } // expect: TypeError
