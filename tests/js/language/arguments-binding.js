// `arguments` in a non-arrow function is its arguments object unless the function itself
// binds the name: an outer `var arguments` does not reach inside.
var arguments = "global";
function length() { return arguments.length; }
var outer = (function () { var arguments = "x"; return function () { return typeof arguments; }; })();
print(length(1, 2), outer(), arguments); // expect: 2 object global
// The function's own `var arguments` is the binding the arguments object is in.
function hoisted() { return typeof arguments; var arguments = 1; }
function assigned(a) { var arguments; arguments = 5; return [a, arguments]; }
function captured() { var arguments; return (() => arguments.length)(); }
print(hoisted(), assigned(1).join(), captured(1, 2, 3)); // expect: object 1,5 3
// Parameter expressions do not see the body's declarations of `arguments`.
function withVar(a = arguments) { var arguments; return [typeof a, a === arguments]; }
function withFunction(x = arguments) { function arguments() {} return [typeof x, typeof arguments]; }
function withLet(x = arguments) { let arguments = 3; return [typeof x, arguments]; }
print(withVar().join(), withFunction().join(), withLet().join()); // expect: object,true object,function object,3
// A parameter named `arguments` is that parameter; outside functions it is a global.
function param(arguments) { return arguments; }
print(param(7), (() => arguments)()); // expect: 7 global
