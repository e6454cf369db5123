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

// Eval code in an inner function finds what the outer function's eval declared in the
// outer var object, which is no receiver either: its scope records which object slots
// are var objects, not only the caller's own.
var strictG = "var g = function () { 'use strict'; return this === undefined ? 'undefined' : typeof this; }";
var sloppyG = "var g = function () { return this === globalThis ? 'global' : typeof this; }";

function innerEvalStrictCallee() {
  eval(strictG);
  function inner() {
    return eval("g()");
  }
  return inner();
}
print(innerEvalStrictCallee()); // expect: undefined

function innerEvalSloppyCallee() {
  eval(sloppyG);
  function inner() {
    return eval("g()");
  }
  return inner();
}
print(innerEvalSloppyCallee()); // expect: global

// the inner function has eval-declared vars of its own
function innerWithOwnVars() {
  eval(strictG);
  function inner() {
    eval("var own = 1");
    return eval("g()") + own;
  }
  return inner();
}
print(innerWithOwnVars()); // expect: undefined1

// an arrow function's eval, and a function nested twice
function arrowEval() {
  eval(strictG);
  var arrow = () => eval("g()");
  return arrow();
}
print(arrowEval()); // expect: undefined

function nestedTwice() {
  eval(strictG);
  function middle() {
    function inner() {
      return eval("g()");
    }
    return inner();
  }
  return middle();
}
print(nestedTwice()); // expect: undefined

function nestedTwiceBothEval() {
  eval(sloppyG);
  function middle() {
    eval("var m = 1");
    function inner() {
      return eval("(() => g())()") + m;
    }
    return inner();
  }
  return middle();
}
print(nestedTwiceBothEval()); // expect: global1

// eval code inside eval code, and a function that eval code declared
function evalInEval() {
  eval(strictG);
  function inner() {
    return eval("eval('g()')");
  }
  return inner();
}
print(evalInEval()); // expect: undefined

function functionFromInnerEval() {
  eval(strictG);
  function inner() {
    eval("function call() { return g(); }");
    return call();
  }
  return inner();
}
print(functionFromInnerEval()); // expect: undefined

function innerDeclaredByEval() {
  eval(strictG);
  eval("function inner() { return eval('g()'); }");
  return inner();
}
print(innerDeclaredByEval()); // expect: undefined

// a `with` object is still the receiver, inside and around the eval code
function withStillReceiver() {
  eval(strictG);
  function inner() {
    var o = { g: receiver };
    var results = [];
    with (o) {
      results.push(eval("g()"));
    }
    results.push(eval("with (o) g()"));
    with ({}) {
      results.push(eval("g()"));
    }
    return results.join();
  }
  return inner();
}
print(withStillReceiver()); // expect: object,object,undefined

// strict eval code (a class method) and a `with` around the inner function that has no g
function strictInner() {
  eval(sloppyG);
  class K {
    m() {
      return eval("g()");
    }
  }
  var inner;
  with ({}) {
    inner = function () {
      return eval("g()");
    };
  }
  return [new K().m(), inner()].join();
}
print(strictInner()); // expect: global,global
