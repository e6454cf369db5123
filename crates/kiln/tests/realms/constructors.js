// GetPrototypeFromConstructor: a new.target whose `prototype` is not an object
// gives the default prototype of new.target's realm, found through bound
// functions and proxies (GetFunctionRealm).
const other = createRealm();
const C = new other.Function();
C.prototype = null;
print(Object.getPrototypeOf(Reflect.construct(Object, [], C)) === other.Object.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(Array, [], C)) === other.Array.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(Error, [], C)) === other.Error.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(Map, [], C)) === other.Map.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(Promise, [() => {}], C)) === other.Promise.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(Uint8Array, [], C)) === other.Uint8Array.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(Function, [], C)) === other.Function.prototype); // expect: true

// a bound function has its target's realm
const bound = Function.prototype.bind.call(C);
print(Object.getPrototypeOf(Reflect.construct(Date, [], bound)) === other.Date.prototype); // expect: true

// a proxy has its target's realm
const proxy = new Proxy(C, {});
print(Object.getPrototypeOf(Reflect.construct(RegExp, [], proxy)) === other.RegExp.prototype); // expect: true

// a revoked proxy has none: TypeError (from the realm doing the lookup)
const revocable = Proxy.revocable(C, {
  get() {
    revocable.revoke();
    return undefined;
  },
});
try {
  Reflect.construct(Object, [], revocable.proxy);
} catch (e) {
  print(e.constructor === TypeError); // expect: true
}

// a plain function of this realm with no object `prototype`
function Local() {}
Local.prototype = 1;
print(Object.getPrototypeOf(Reflect.construct(other.Object, [], Local)) === Object.prototype); // expect: true

// a JavaScript constructor of the other realm constructed with that new.target
const Plain = other.evalScript("(function Plain() {})");
Plain.prototype = undefined;
print(Object.getPrototypeOf(new Plain()) === other.Object.prototype); // expect: true
print(Object.getPrototypeOf(Reflect.construct(function () {}, [], Plain)) === other.Object.prototype); // expect: true
