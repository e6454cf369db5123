// Private methods are not writable; private elements are added once per object, never to
// a non-extensible one, and may be added to a proxy.
class C {
  #m() { return 1; }
  static #s() { return 2; }
  write() { this.#m = 0; }
  compound() { this.#m += 1; }
  static writeStatic() { C.#s = 0; }
}
for (const f of [() => new C().write(), () => new C().compound(), () => C.writeStatic()]) {
  try { f(); } catch (e) { print(e.constructor.name); }
}
// expect: TypeError
// expect: TypeError
// expect: TypeError

class Base { constructor(o) { return o; } }
class WithGetter extends Base { get #p() { return 1; } static has(o) { return #p in o; } }
var o = {};
new WithGetter(o);
print(WithGetter.has(o)); // expect: true
try { new WithGetter(o); } catch (e) { print(e.constructor.name); } // expect: TypeError

class Stamp extends Base { #x = 5; static x(o) { return o.#x; } }
var p = new Proxy({}, {});
new Stamp(p);
print(Stamp.x(p)); // expect: 5
try { new Stamp(Object.preventExtensions({})); } catch (e) { print(e.constructor.name); } // expect: TypeError
