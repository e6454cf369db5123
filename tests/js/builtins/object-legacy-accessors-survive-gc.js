// Regression: __defineGetter__, __defineSetter__, __lookupGetter__ and
// __lookupSetter__ made the wrapper object of a primitive `this` and held it unrooted
// while the key's toString ran; the gc-stress build panicked on the freed wrapper in
// __defineGetter__ (the lookups hold the same pattern, and a proxy's prototype).
function allocatingKey(name) {
  return { toString() { var junk = []; for (var i = 0; i < 50; i++) junk.push({ i }); return name; } };
}
var get = function () { return 1; };
print("ab".__defineGetter__(allocatingKey("x"), get));
// expect: undefined
print("ab".__defineSetter__(allocatingKey("y"), get));
// expect: undefined
print("ab".__lookupGetter__(allocatingKey("length")), (5).__lookupGetter__(allocatingKey("toFixed")));
// expect: undefined undefined
print(typeof Object.prototype.__lookupGetter__.call("ab", allocatingKey("__proto__")));
// expect: function
