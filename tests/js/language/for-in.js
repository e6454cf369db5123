// for-in: own enumerable string keys (indices first), then those of each prototype
// not already seen, whether enumerable or not, on the object or above it.
function keys(o) {
  var out = [];
  for (var k in o) out.push(k);
  return out.join();
}
print(keys({ b: 1, a: 2, 1: 3, 0: 4 })); // expect: 0,1,b,a
print(keys([5, , 7])); // expect: 0,2
print(keys(Object.create(null)) === "", keys(null) === "", keys(undefined) === ""); // expect: true true true
print(keys("hi")); // expect: 0,1

class Shape { constructor() { this.w = 1; } area() { return 0; } }
class Box extends Shape { constructor() { super(); this.h = 2; } }
print(keys(new Box())); // expect: w,h

var base = { inherited: 1, shadowed: 2 };
var mid = Object.create(base, { shadowed: { value: 3, enumerable: false } });
var top = Object.create(mid);
top.own = 4;
print(keys(top)); // expect: own,inherited

var parent = { p: 1 };
var child = Object.create(parent);
child.c = 2;
child.p = 3;
print(keys(child)); // expect: c,p

var shrinking = { a: 1, b: 2, c: 3 };
var seen = [];
for (var k in shrinking) {
  seen.push(k);
  delete shrinking.b;
}
print(seen.join()); // expect: a,c

var growing = { a: 1 };
seen = [];
for (var k in growing) {
  seen.push(k);
  growing.z = 1;
}
print(seen.join()); // expect: a

var early = { x: 1, y: 2 };
for (var k in early) break;
print(k); // expect: x

var proxied = new Proxy({ q: 1, r: 2 }, {});
print(keys(proxied)); // expect: q,r
print(keys(Object.create(proxied))); // expect: q,r

Object.prototype.polluted = 1;
print(keys({ own: 1 })); // expect: own,polluted
delete Object.prototype.polluted;
print(keys({ own: 1 })); // expect: own

var typed = new Uint8Array(2);
print(keys(typed)); // expect: 0,1

var dict = {};
for (var i = 0; i < 200; i++) dict["k" + i] = i;
for (var i = 0; i < 198; i++) delete dict["k" + i];
print(keys(dict)); // expect: k198,k199
