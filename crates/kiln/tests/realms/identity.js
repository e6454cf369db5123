// What realms share (symbols, the Symbol.for registry) and what they do not.
const other = createRealm();
print(other.Symbol === Symbol, other.Symbol.iterator === Symbol.iterator); // expect: false true
print(other.Symbol.for("key") === Symbol.for("key")); // expect: true
print(other.Symbol.keyFor(Symbol.for("mine"))); // expect: mine

// typeof and instanceof across realms
const otherArray = other.evalScript("[1, 2]");
const otherFunction = other.evalScript("(function () {})");
print(typeof otherFunction, typeof other.Object, typeof otherArray); // expect: function function object
print(otherArray instanceof Array, otherArray instanceof other.Array); // expect: false true
print(Array.isArray(otherArray), Object.prototype.toString.call(otherArray)); // expect: true [object Array]
print(otherFunction instanceof Function, otherFunction instanceof other.Function); // expect: false true
print(other.Object.getPrototypeOf(otherArray) === other.Array.prototype); // expect: true
// Iterating another realm's array uses the shared Symbol.iterator.
print([...otherArray].join("+")); // expect: 1+2
