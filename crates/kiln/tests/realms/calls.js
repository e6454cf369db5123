// Calls between realms: the callee's realm runs, the caller's comes back.
const other = createRealm();
print(other === globalThis, typeof other.Array, other.Array === Array); // expect: false function false

// A sloppy function called with undefined `this` sees its own realm's global object;
// primitives are wrapped with its realm's constructors.
const sloppyThis = other.evalScript("(function () { return this; })");
print(sloppyThis() === other); // expect: true
print(Object.getPrototypeOf(sloppyThis.call(1)) === other.Number.prototype); // expect: true

// Deep mutual recursion between realms runs on frames, not on the native stack.
other.evalScript("var ping = function (n) { return n === 0 ? Array : pong(n - 1); };");
other.pong = function (n) { return other.ping(n); };
print(other.ping(5000) === other.Array); // expect: true
print(Array === globalThis.Array); // expect: true

// Closures created by other-realm code belong to it, wherever they are called from.
const makeArray = other.evalScript("(function () { return () => []; })")();
print(Object.getPrototypeOf(makeArray()) === other.Array.prototype); // expect: true
print(Object.getPrototypeOf(makeArray) === other.Function.prototype); // expect: true

// Generators and async functions resume in their own realm.
const gen = other.evalScript("(function* () { yield []; yield []; })")();
print(Object.getPrototypeOf(gen.next().value) === other.Array.prototype); // expect: true
print(Object.getPrototypeOf(gen.next().value) === other.Array.prototype); // expect: true
const later = other.evalScript("(async function () { await 0; return []; })")();
later.then(a => print("async", Object.getPrototypeOf(a) === other.Array.prototype));
print(later instanceof other.Promise); // expect: true

// An exception thrown by other-realm code unwinds back into this realm.
try {
  other.evalScript("(function () { throw new Error('from other'); })")();
} catch (e) {
  print(e.message, e instanceof other.Error, [] instanceof Array); // expect: from other true true
}

// Parked realms survive a collection.
gc();
print(other.evalScript("[1, 2, 3].map(x => x * 2).join()")); // expect: 2,4,6
// The async function's continuation runs with the jobs, after the script:
// expect: async true
