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
