// The Function constructor and indirect eval make code in their own realm.
const other = createRealm();
const f = other.Function("return Array");
print(f() === other.Array); // expect: true
print(Object.getPrototypeOf(f) === other.Function.prototype); // expect: true
print(other.Function("return this")() === other); // expect: true
const g = new other.Function("a", "b", "return a + b");
print(g(1, 2), g instanceof other.Function); // expect: 3 true

const otherEval = other.eval;
print(otherEval("Array") === other.Array); // expect: true
print(otherEval("var declaredByEval = 1; typeof declaredByEval")); // expect: number
print(other.declaredByEval, typeof declaredByEval); // expect: 1 undefined

// Another realm's eval called as `eval(...)` is not a direct eval.
var probe = "main global";
function direct() {
  var probe = "local";
  return eval("probe");
}
function notDirect() {
  var probe = "local";
  var eval = otherEval;
  return eval("typeof probe");
}
print(direct(), notDirect()); // expect: local undefined

// Generator and async function constructors of the other realm.
const GeneratorFunction = other.evalScript("Object.getPrototypeOf(function* () {}).constructor");
const gen = GeneratorFunction("yield 1");
print(Object.getPrototypeOf(gen) === other.evalScript("Object.getPrototypeOf(function* () {})")); // expect: true
print(gen().next().value); // expect: 1

// RegExp.prototype.compile (Annex B) only works on its own realm's regular expressions.
try {
  RegExp.prototype.compile.call(new other.RegExp("a"));
} catch (e) {
  print(e.constructor === TypeError); // expect: true
}
print(other.RegExp.prototype.compile.call(other.evalScript("/a/"), "b").source); // expect: b
