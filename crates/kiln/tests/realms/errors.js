// Errors thrown by built-ins and by the interpreter are made in the realm of the
// function that throws them.
const other = createRealm();
try {
  other.Array.prototype.map.call([], 1);
} catch (e) {
  print(e instanceof other.TypeError, e instanceof TypeError); // expect: true false
}
try {
  Array.prototype.map.call(other.evalScript("[]"), 1);
} catch (e) {
  print(e instanceof other.TypeError, e instanceof TypeError); // expect: false true
}
try {
  other.evalScript("null.x");
} catch (e) {
  print(e.constructor === other.TypeError); // expect: true
}
try {
  other.evalScript("(");
} catch (e) {
  print(e.constructor === other.SyntaxError); // expect: true
}
const readMissing = other.evalScript("(function () { return missingBinding; })");
try {
  readMissing();
} catch (e) {
  print(e.constructor === other.ReferenceError); // expect: true
}
// Calling something that is not callable fails in the caller's realm.
const notCallable = other.evalScript("({})");
try {
  notCallable();
} catch (e) {
  print(e.constructor === TypeError); // expect: true
}
// A class constructor called without `new` throws in its own realm.
const C = other.evalScript("(class {})");
try {
  C();
} catch (e) {
  print(e.constructor === other.TypeError); // expect: true
}
// A derived constructor's bad result is checked after it returned: the error is the
// caller's, and the constructor's own handlers do not see it.
const ReturnsNull = other.evalScript("(class extends Object { constructor() { try { return null; } catch (e) { return {}; } } })");
try {
  new ReturnsNull();
} catch (e) {
  print(e.constructor === TypeError); // expect: true
}
const NoSuper = other.evalScript("(class extends Object { constructor() {} })");
try {
  new NoSuper();
} catch (e) {
  print(e.constructor === ReferenceError); // expect: true
}
