"use strict";
// Direct eval in strict code is strict code: its early errors apply.
for (const source of ["var public = 1;", "var arguments;", "arguments = 10", "try {} catch (eval) {}", "(function (eval) {})", "with ({}) {}", "010"]) {
  try { eval(source); print("accepted", source); } catch (e) { print(e.constructor.name); }
}
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
// expect: SyntaxError
print(eval("'a'; 'b'")); // expect: b
print(eval("var x;")); // expect: undefined
