// Derived constructors: an invalid return value is checked after the body has ended, the
// default constructor passes its arguments on without iterating them, and field
// initialisers see `this` bound, also through arrows made before `super()`.
class Returns0 extends class {} {
  constructor() {
    super();
    try { return 0; } catch (e) { print("caught inside"); }
  }
}
try { new Returns0(); } catch (e) { print(e.constructor.name); } // expect: TypeError

class NoSuper extends class {} {
  constructor() {
    try { return; } catch (e) { print("caught inside"); }
  }
}
try { new NoSuper(); } catch (e) { print(e.constructor.name); } // expect: ReferenceError

var saved = Array.prototype[Symbol.iterator];
Array.prototype[Symbol.iterator] = function () { throw new Error("iterated"); };
class Base { constructor(a, b) { this.sum = a + b; } }
class Default extends Base {}
print(new Default(2, 3).sum); // expect: 5
Array.prototype[Symbol.iterator] = saved;

var probe;
class WithField extends class {} {
  seen = probe();
  constructor() {
    probe = () => this;
    super();
  }
}
var w = new WithField();
print(w.seen === w); // expect: true
