// Uncaught exceptions exit with status 1 and print the error with its stack.
function thrower() {
  throw new RangeError("out of range");
}
try {
  thrower();
} catch (e) {
  print(e instanceof RangeError, e.name, e.message); // expect: true RangeError out of range
}
try {
  null.x;
} catch (e) {
  print(e.constructor === TypeError); // expect: true
}
let finallyRan = false;
try {
  try { throw 1; } finally { finallyRan = true; }
} catch (v) {
  print(v, finallyRan); // expect: 1 true
}
thrower();
// expect-error: RangeError: out of range
