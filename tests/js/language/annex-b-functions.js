// Annex B.3.3: a sloppy function declared in a block gets a var binding too, unless a
// `var` of its name would clash with a lexical declaration of an enclosing block.
{ function outer() { return 1; } }
print(typeof outer); // expect: function
{ let clash = 1; { function clash() {} } }
print(typeof clash); // expect: undefined
function inFunction() {
  { let f = 1; { function f() {} } }
  return typeof f;
}
print(inFunction()); // expect: undefined
eval("{ let g = 1; { function g() {} } }");
print(typeof g); // expect: undefined
(function () {
  eval("{ let h = 1; { function h() {} } print(typeof h); }"); // expect: number
  print(typeof h); // expect: undefined
})();
// A simple catch parameter does not stop the var binding; a destructuring one does
// (B.3.4: only a plain identifier may be redeclared by a var).
try { throw {}; } catch (caught) { { function caught() {} } }
try { throw {}; } catch ({ destructured }) { { function destructured() {} } }
print(typeof caught, typeof destructured); // expect: function undefined
// A `let` that an `if` clause's function redeclares stays in its block.
(function () { { let f = 123; if (true) function f() {} } print(typeof f); })(); // expect: undefined
// B.3.4: a function declaration as an `if` clause is evaluated like one alone in a block.
if (true) function ifClause() { return "if"; }
(function () { if (false) ; else function elseClause() { return "else"; } print(ifClause(), elseClause()); })(); // expect: if else
// Its var binding is skipped when a parameter or a lexical declaration has the name.
(function (p) { if (true) function p() {} print(p); })(1); // expect: 1
(function () { let q = 2; { if (true) function q() {} } print(q); })(); // expect: 2
// B.3.5: `for (var a = init in o)` (sloppy code) assigns init before evaluating o.
(function () { var stored; for (var a = 7 in stored = a, {}); print(stored, a); })(); // expect: 7 7
