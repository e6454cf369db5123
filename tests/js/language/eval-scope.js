// Direct eval sees the caller's scope; sloppy eval adds vars to the caller.
function f() { var x = 1; return eval("x"); }
print(f()); // expect: 1

function g(a) { let b = 2; eval("var c = a + b"); return c; }
print(g(40)); // expect: 42

function h() { eval("var y = 7"); return typeof y + " " + y; }
print(h()); // expect: number 7
print(typeof y); // expect: undefined

function strictVars() { "use strict"; var z = 3; eval("var z = 4; var w = 1"); return z + typeof w; }
print(strictVars()); // expect: 3undefined

eval("var fromGlobalEval = 9");
print(fromGlobalEval); // expect: 9

var o = { p: 1 };
function thisOf() { return eval("this"); }
print(thisOf.call(o) === o); // expect: true

function nt() { return eval("new.target"); }
print(nt()); // expect: undefined
print(typeof new nt()); // expect: function

function args() { return eval("arguments.length"); }
print(args(1, 2, 3)); // expect: 3

function closureInEval() { var v = 1; return eval("(function () { return v + 1; })")(); }
print(closureInEval()); // expect: 2

function assignLet() { let q = 1; eval("q = 5"); return q; }
print(assignLet()); // expect: 5

function assignConst() { const q = 1; try { eval("q = 5"); } catch (e) { return e.constructor.name; } }
print(assignConst()); // expect: TypeError

function tdz() { try { eval("early"); } catch (e) { return e.constructor.name; } let early = 1; }
print(tdz()); // expect: ReferenceError

function conflict() { let k = 1; { try { eval("var k = 2"); } catch (e) { return e.constructor.name; } } }
print(conflict()); // expect: SyntaxError

function evalFunction() { eval("function inner() { return 'inner'; }"); return inner(); }
print(evalFunction()); // expect: inner

function evalLetIsLocal() { eval("let local = 1"); return typeof local; }
print(evalLetIsLocal()); // expect: undefined

function nested() { var n = 1; return eval("eval('n + 1')"); }
print(nested()); // expect: 2

function arrowEval() { var m = 3; return (() => eval("m * this.k"))(); }
print(arrowEval.call({ k: 2 })); // expect: 6

function shadowOuter() { eval("var outerName = 'inner'"); return outerName; }
var outerName = "outer";
print(shadowOuter() + " " + outerName); // expect: inner outer

var indirect = eval;
function viaIndirect() { var local = 1; return indirect("typeof local"); }
print(viaIndirect()); // expect: undefined

// Sloppy eval in a parameter initialiser may not declare a var named like a parameter.
var bodyRan = false;
function paramConflict(a = eval("var a = 42")) { bodyRan = true; }
try { paramConflict(); } catch (e) { print(e.constructor.name, bodyRan); } // expect: SyntaxError false
var arrowConflict = (p = eval("var later = 1"), later) => later;
try { arrowConflict(); } catch (e) { print(e.constructor.name); } // expect: SyntaxError
function paramFree(a = eval("var b = 2"), c = b) { return c; }
print(paramFree()); // expect: 2
// `eval(...list)` is a direct eval of the list's first element.
(function () { var x = "local"; eval(...["x = 1;", "x = 2;"]); print(x, eval(...[])); })(); // expect: 1 undefined
