// Property sites that see many shapes (megamorphic) read and write correctly.
function makeObjects() {
  var objs = [];
  for (var i = 0; i < 40; i++) {
    var o = {};
    o["p" + i] = i; // a shape of its own
    if (i % 5 === 0) o.x = 100;
    objs.push(o);
  }
  return objs;
}
function setX(o, v) { o.x = v; }
function getX(o) { return o.x; }
var objs = makeObjects();
for (var round = 0; round < 3; round++) {
  for (var i = 0; i < objs.length; i++) setX(objs[i], i + round);
}
var sum = 0;
for (var i = 0; i < objs.length; i++) sum += getX(objs[i]);
print(sum, Object.keys(objs[3]).join()); // expect: 860 p3,x

// A setter on the prototype of some shapes is called, not shadowed by a cached add.
var log = [];
var withSetter = { set x(v) { log.push(v); } };
var more = [];
for (var i = 0; i < 30; i++) {
  var o = i % 3 === 0 ? Object.create(withSetter) : {};
  o["q" + i] = i;
  more.push(o);
}
for (var r = 0; r < 2; r++) for (var i = 0; i < more.length; i++) setX(more[i], r);
print(log.length, log.slice(0, 3).join(), Object.hasOwn(more[0], "x"), more[1].x); // expect: 20 0,0,0 false 1

// A read-only property is not overwritten through a cached write; a non-extensible
// object gets no new property.
var ro = Object.defineProperty({ r: 1 }, "x", { value: 7, writable: false });
setX(ro, 8);
var sealed = Object.preventExtensions({ s: 1 });
setX(sealed, 9);
print(ro.x, sealed.x); // expect: 7 undefined
