// Fast paths for property writes and reads. Writes that add a property (a hole of
// `new Array(n)` filled in place, a string key added to an object used as a map) must
// still see what the prototype chain says: a setter or a read-only element there
// decides the write.
function fill(a) {
  for (var i = 0; i < a.length; i++) a[i] = i * 2;
  return a;
}
print(fill(new Array(4)).join()); // expect: 0,2,4,6
print(Object.keys(fill(new Array(3))).join()); // expect: 0,1,2

// a setter for index 1 on Array.prototype runs instead of the write
var seen = "";
Object.defineProperty(Array.prototype, "1", {
  set(v) { seen += v; },
  configurable: true,
});
var a = fill(new Array(3));
print(a.hasOwnProperty(1), seen); // expect: false 2
delete Array.prototype[1];

// a read-only element up the chain stops the write (and throws in strict code)
var proto = Object.defineProperty([], "0", { value: "p", writable: false });
var b = new Array(2);
Object.setPrototypeOf(b, proto);
b[0] = "own";
print(b[0], b.hasOwnProperty(0)); // expect: p false
print((function () {
  "use strict";
  try { b[0] = 1; return "written"; } catch (e) { return e.constructor.name; }
})()); // expect: TypeError

// a non-extensible array keeps its holes
var c = Object.preventExtensions(new Array(2));
c[1] = "x";
print(c.hasOwnProperty(1), c.length); // expect: false 2
c.length = 2;

// an ordinary object with holes in its elements
var o = {};
o[3] = "three";
o[1] = "one";
print(Object.keys(o).join()); // expect: 1,3

// string keys added to maps: own, inherited setter, read-only inherited, frozen
var cache = { ".": 0 };
var names = ["a", "b", "c", "a"];
for (var j = 0; j < names.length; j++) cache[names[j]] = j;
print(JSON.stringify(cache)); // expect: {".":0,"a":3,"b":1,"c":2}
var log = [];
var withSetter = Object.create({ set k(v) { log.push(v); } });
withSetter["k"] = 7;
print(withSetter.hasOwnProperty("k"), log.join()); // expect: false 7
var readOnly = Object.create(Object.defineProperty({}, "k", { value: 1 }));
readOnly["k"] = 2;
print(readOnly.k, readOnly.hasOwnProperty("k")); // expect: 1 false
var frozen = Object.freeze({});
frozen["k"] = 1;
print(frozen.k); // expect: undefined
var arr = [];
arr["x"] = 1;
arr["2"] = 2;
print(arr.length, arr.x); // expect: 3 1

// `length` reads of arrays and strings, beside objects with a `length` of their own
var lengths = [[1, 2, 3], "four", { length: 5 }, new Array(6), Object.create([1, 2])];
var seenLengths = [];
for (var n = 0; n < lengths.length; n++) seenLengths.push(lengths[n].length);
print(seenLengths.join()); // expect: 3,4,5,6,2
var sparse = [];
sparse[100000] = 1;
print(sparse.length, "\u{1F600}".length); // expect: 100001 2
