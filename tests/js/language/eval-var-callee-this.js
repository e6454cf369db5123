// A function that a sloppy direct eval declared lives in the calling function's var
// object, which the specification treats as a declarative environment: calling it by its
// plain name passes an undefined `this`, as any other plain call does. Only a `with`
// object is the receiver of a plain call.
function receiver() {
  return this === undefined ? "undefined" : this === globalThis ? "global" : typeof this;
}

function sloppyEvalVar() {
  eval("var g = function () { return this === globalThis ? 'global' : typeof this; }");
  return g();
}
print(sloppyEvalVar()); // expect: global

function strictEvalVar() {
  eval("var g = function () { 'use strict'; return this === undefined ? 'undefined' : typeof this; }");
  return [g(), (g)(), (0, g)(), (() => g())()].join();
}
print(strictEvalVar()); // expect: undefined,undefined,undefined,undefined

function evalDeclaration() {
  eval("function g() { 'use strict'; return this === undefined ? 'undefined' : Object.keys(this).join(); }");
  return g();
}
print(evalDeclaration()); // expect: undefined

// the call inside the eval code itself
function callInsideEval() {
  return eval("var h = function () { 'use strict'; return this === undefined ? 'undefined' : typeof this; }; h()");
}
print(callInsideEval()); // expect: undefined

// a `with` object between the call and the var object is still the receiver
function withInside() {
  eval("var g = function () { 'use strict'; return this === undefined ? 'undefined' : typeof this; }");
  var o = { g: receiver };
  with (o) {
    var fromWith = g();
  }
  with ({}) {
    var pastWith = g();
  }
  return [fromWith, pastWith].join();
}
print(withInside()); // expect: object,undefined
