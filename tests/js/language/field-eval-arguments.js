// Direct eval in a class field initialiser may not mention `arguments` (outside a
// nested non-arrow function); the check happens before any of the eval code runs.
var ran = false;
class A { x = eval("ran = true; arguments;"); }
try { new A(); } catch (e) { print(e.constructor.name, ran); } // expect: SyntaxError false
class B { x = () => eval("() => arguments"); }
try { new B().x(); } catch (e) { print(e.constructor.name); } // expect: SyntaxError
class C { x = eval("(function () { return arguments.length; })(1, 2)"); }
print(new C().x); // expect: 2
