// Object.keys: indices ascending, then string keys in insertion order; only enumerable
// own string keys, whatever the object's layout.
var o = { b: 1, a: 2, 10: "x", 2: "y" };
o[Symbol("s")] = 3;
Object.defineProperty(o, "hidden", { value: 4, enumerable: false });
o.c = 5;
print(Object.keys(o).join()); // expect: 2,10,b,a,c

var arr = [1, , 3];
arr.extra = true;
print(Object.keys(arr).join()); // expect: 0,2,extra

var frozen = Object.freeze([7, 8]);
print(Object.keys(frozen).join()); // expect: 0,1

var sparse = [1, 2, 3];
Object.defineProperty(sparse, 1, { enumerable: false });
print(Object.keys(sparse).join()); // expect: 0,2

var dict = {};
for (var i = 0; i < 100; i++) dict["k" + i] = i;
for (var i = 0; i < 98; i++) delete dict["k" + i];
dict.last = 1;
Object.defineProperty(dict, "quiet", { value: 1, enumerable: false });
print(Object.keys(dict).join()); // expect: k98,k99,last

function f(a, b) {}
f.tag = 1;
print(Object.keys(f).join()); // expect: tag

class Point { constructor() { this.x = 1; this.y = 2; } get norm() { return 0; } }
print(Object.keys(new Point()).join()); // expect: x,y

(function () { print(Object.keys(arguments).join()); })("p", "q"); // expect: 0,1

print(Object.keys(new String("hey")).join()); // expect: 0,1,2
print(Object.keys(new Uint8Array(3)).join()); // expect: 0,1,2
print(Object.keys(new Proxy({ p: 1, q: 2 }, {})).join()); // expect: p,q

var made = Object.create({ inherited: 1 }, { own: { value: 1, enumerable: true } });
print(Object.keys(made).join()); // expect: own

var redefined = { a: 1, b: 2 };
Object.defineProperty(redefined, "a", { enumerable: false });
print(Object.keys(redefined).join()); // expect: b
Object.defineProperty(redefined, "a", { enumerable: true });
print(Object.keys(redefined).join()); // expect: a,b
