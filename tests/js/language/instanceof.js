// instanceof: the ordinary test (a constructor's `prototype` on the chain) is remembered
// per constructor shape; every way the answer can change must still be seen. Each
// check runs in a loop so that later rounds take the remembered path.
function rounds(f) {
  var out = [];
  for (var i = 0; i < 3; i++) out.push(f());
  return out.join();
}
function A() {}
function B() {}
B.prototype = Object.create(A.prototype);
var b = new B();
print(rounds(() => [b instanceof A, b instanceof B, {} instanceof A, 1 instanceof A].join("/"))); // expect: true/true/false/false,true/true/false/false,true/true/false/false

// `prototype` replaced by a plain write (same shape): the new value is read
var before = b instanceof A;
A.prototype = {};
print(before, b instanceof A); // expect: true false

// a non-object prototype throws, but only for an object on the left
B.prototype = 5;
try { b instanceof B; } catch (e) { print(e.constructor.name); } // expect: TypeError
print(1 instanceof B); // expect: false

// Symbol.hasInstance of the constructor's own, added after warm use
function D() {}
var d = new D();
print(rounds(() => d instanceof D)); // expect: true,true,true
Object.defineProperty(D, Symbol.hasInstance, { value: () => false });
print(d instanceof D); // expect: false

// Symbol.hasInstance on a prototype put between the constructor and Function.prototype
function E() {}
var e = new E();
print(rounds(() => e instanceof E)); // expect: true,true,true
Object.setPrototypeOf(E, { [Symbol.hasInstance]() { return "yes"; } });
print(e instanceof E, {} instanceof E); // expect: true true

// a class with a static Symbol.hasInstance, and classes in a hierarchy
class C { static [Symbol.hasInstance](x) { return x === 1; } }
print(1 instanceof C, 2 instanceof C); // expect: true false
class Base {}
class Derived extends Base {}
var o = new Derived();
print(rounds(() => [o instanceof Base, o instanceof Derived, new Base() instanceof Derived].join("/"))); // expect: true/true/false,true/true/false,true/true/false
Base.extra = 1; // the subclass constructor's prototype (Base) changes layout
print(o instanceof Derived, o instanceof Base); // expect: true true

// `prototype` is not configurable on functions, but a non-object prototype is read
// as it is written, and the ordinary test comes back with an object
function G() {}
var g = new G();
print(rounds(() => g instanceof G)); // expect: true,true,true
var saved = G.prototype;
G.prototype = null;
try { g instanceof G; } catch (err) { print(err.constructor.name); } // expect: TypeError
G.prototype = saved;
print(g instanceof G); // expect: true

// bound functions test against their target; a proxy's traps are consulted
function F() {}
var f = new F();
var bound = F.bind(null);
print(rounds(() => f instanceof bound)); // expect: true,true,true
var seen = [];
var P = new Proxy(F, { get(t, k) { seen.push(String(k)); return t[k]; } });
print(f instanceof P, seen.join()); // expect: true Symbol(Symbol.hasInstance),prototype

// built-in constructors
print(rounds(() => [[] instanceof Array, [] instanceof Object, /x/ instanceof Array].join("/"))); // expect: true/true/false,true/true/false,true/true/false

// a right-hand side that is not a callable object
try { ({}) instanceof {}; } catch (err) { print(err.constructor.name); } // expect: TypeError
try { ({}) instanceof 1; } catch (err) { print(err.constructor.name); } // expect: TypeError
