// Regression: Object.assign, Object.getOwnPropertyDescriptor and Object.hasOwn made
// the wrapper object of a primitive (ToObject) and held it unrooted across code that
// runs JavaScript (a getter, a key's toString). A collection there freed the wrapper
// and the next allocation took its slot. Built with the gc-stress feature, the first
// use of the freed wrapper panics; an ordinary build sees another object instead.
var keep = [];
function churn() {
  // enough bytes that an ordinary build collects here, then objects that take the
  // slots the collection freed
  for (var i = 0; i < 3; i++) new Array(1 << 20).fill(i);
  for (var j = 0; j < 500; j++) keep.push({ impostor: j });
}

// Object.assign: the target made from a string, written after a getter ran
var target = Object.assign("ab", { get x() { churn(); return 1; } }, { y: 2 });
print(typeof target, target.length, target[0], target.x, target.y, target.impostor);
// expect: object 2 a 1 2 undefined

// Object.getOwnPropertyDescriptor: the object made before the key's toString ran
var d = Object.getOwnPropertyDescriptor("ab", { toString() { churn(); return "length"; } });
print(d.value, d.writable, d.enumerable, d.configurable);
// expect: 2 false false false

// Object.hasOwn: the same order of operations
print(Object.hasOwn("ab", { toString() { churn(); return "1"; } }));
// expect: true
print(Object.hasOwn(7, { toString() { churn(); return "impostor"; } }));
// expect: false
