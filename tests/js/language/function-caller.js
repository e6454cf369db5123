// Non-strict functions have own `caller` and `arguments` properties that are always
// undefined: Kiln exposes no caller information (so never a strict caller).
function sloppy() { return sloppy.caller; }
function strictCaller() { "use strict"; return sloppy(); }
print(strictCaller(), sloppy.arguments); // expect: undefined undefined
var d = Object.getOwnPropertyDescriptor(sloppy, "caller");
print(d.value, d.writable, d.enumerable, d.configurable); // expect: undefined false false false
print(Object.getOwnPropertyNames(sloppy).join()); // expect: length,name,prototype,arguments,caller
print(new sloppy() instanceof sloppy); // expect: true
// Strict functions, arrows, methods, classes and built-ins have none: they inherit
// %Function.prototype%'s %ThrowTypeError% accessors (or, for arrows, throw the same way).
function strict() { "use strict"; }
print(strict.hasOwnProperty("caller"), (() => 0).hasOwnProperty("caller"), ({ m() {} }).m.hasOwnProperty("arguments"), (class {}).hasOwnProperty("caller"), Math.max.hasOwnProperty("caller")); // expect: false false false false false
try { strict.caller; } catch (e) { print(e instanceof TypeError); } // expect: true
print(Function("return 1").hasOwnProperty("caller"), Function("'use strict'; return 1").hasOwnProperty("caller")); // expect: true false
