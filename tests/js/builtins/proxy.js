// Proxy traps, invariants, revocation; Reflect.
const log = [];
const target = { a: 1 };
const p = new Proxy(target, {
  get(t, k, r) { log.push('get ' + String(k)); return Reflect.get(t, k, r); },
  set(t, k, v, r) { log.push('set ' + k); return Reflect.set(t, k, v, r); },
  has(t, k) { log.push('has ' + k); return k in t; },
  deleteProperty(t, k) { log.push('delete ' + k); return delete t[k]; },
  ownKeys(t) { log.push('ownKeys'); return Reflect.ownKeys(t); },
});
p.b = 2;
print(p.a, 'b' in p, delete p.a, Object.keys(p)) // expect: 1 true true [ 'b' ]
print(log.join()) // expect: set b,get a,has b,delete a,ownKeys

// no handler trap: forwards to the target
const plain = new Proxy([1, 2, 3], {});
print(plain.length, Array.isArray(plain), plain[1]) // expect: 3 true 2

// callable and constructible proxies
const f = new Proxy(function (a, b) { return a + b; }, {
  apply(t, self, args) { return t(...args) * 10; },
  construct(t, args, nt) { return { made: args[0] }; },
});
print(f(1, 2), new f(7).made, typeof f) // expect: 30 7 function
print(typeof new Proxy({}, { construct() { return 1; } })) // expect: object
try { new (new Proxy(function () {}, { construct() { return 1; } }))() } catch (e) { print(e.name) } // expect: TypeError

// invariants
const frozen = Object.freeze({ x: 1 });
const liar = new Proxy(frozen, { get() { return 2; }, has() { return false; }, ownKeys() { return []; } });
try { liar.x } catch (e) { print(e.name) } // expect: TypeError
try { 'x' in liar } catch (e) { print(e.name) } // expect: TypeError
try { Object.keys(liar) } catch (e) { print(e.name) } // expect: TypeError
const dup = new Proxy({}, { ownKeys() { return ['a', 'a']; } });
try { Reflect.ownKeys(dup) } catch (e) { print(e.name) } // expect: TypeError
const badProto = new Proxy(Object.preventExtensions({}), { getPrototypeOf() { return Array.prototype; } });
try { Object.getPrototypeOf(badProto) } catch (e) { print(e.name) } // expect: TypeError
const badDesc = new Proxy({}, { getOwnPropertyDescriptor() { return { value: 1, configurable: false }; } });
try { Object.getOwnPropertyDescriptor(badDesc, 'q') } catch (e) { print(e.name) } // expect: TypeError
const badDefine = new Proxy({}, { defineProperty() { return true; } });
try { Object.defineProperty(badDefine, 'q', { value: 1, configurable: false }) } catch (e) { print(e.name) } // expect: TypeError
print(Reflect.defineProperty(badDefine, 'r', { value: 1 })) // expect: true

// revocation
const { proxy, revoke } = Proxy.revocable({ v: 1 }, {});
print(proxy.v) // expect: 1
revoke();
revoke();
try { proxy.v } catch (e) { print(e.name) } // expect: TypeError
try { Array.isArray(proxy) } catch (e) { print(e.name) } // expect: TypeError
try { Proxy({}, {}) } catch (e) { print(e.name) } // expect: TypeError
try { new Proxy(1, {}) } catch (e) { print(e.name) } // expect: TypeError
print(Proxy.prototype, Proxy.length) // expect: undefined 2

// a proxy chain deeper than the native limit ends in a RangeError, not a crash
let deep = {};
for (let i = 0; i < 100000; i++) deep = new Proxy(deep, {});
try { deep.x } catch (e) { print(e.name) } // expect: RangeError

// Reflect
const o = {};
print(Reflect.defineProperty(o, 'x', { value: 1 }), Reflect.set(o, 'x', 2), o.x) // expect: true false 1
print(Reflect.has({ a: 1 }, 'a'), Reflect.ownKeys({ b: 1, [Symbol.iterator]: 0, 1: 0 }).length) // expect: true 3
print(Reflect.apply(Math.max, null, [1, 3, 2]), Reflect.construct(Date, [0]).getTime()) // expect: 3 0
class A { constructor() { this.nt = new.target.name; } }
class B {}
print(Reflect.construct(A, [], B).nt, Reflect.getPrototypeOf(Reflect.construct(A, [], B)) === B.prototype) // expect: B true
const receiver = { y: 5 };
print(Reflect.get({ get x() { return this.y; } }, 'x', receiver)) // expect: 5
try { Reflect.get(1, 'x') } catch (e) { print(e.name) } // expect: TypeError
print(Reflect.isExtensible(Object.preventExtensions({})), Reflect.setPrototypeOf({}, null)) // expect: false true
print(Object.prototype.toString.call(Reflect)) // expect: [object Reflect]
