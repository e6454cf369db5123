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

// An exotic object shares its shape with ordinary objects of the same prototype, but a
// cached prototype property, absence or add must not hide what is virtual in it.
var X = { length: 5 };
var ordinary = Object.create(X);
var arr = [1, 2];
Object.setPrototypeOf(arr, X);
function len(z) { return z.length; }
print(len(ordinary), len(arr)); // expect: 5 2
var str = new String("abc");
Object.setPrototypeOf(str, X);
print(len(str)); // expect: 3
var bare = [1];
Object.setPrototypeOf(bare, null);
function len2(z) { return z.length; }
print(len2(Object.create(null)), len2(bare)); // expect: undefined 1
function readY(z) { return z.y; }
var trapped = new Proxy({}, { get: function () { return 42; } });
print(readY(Object.create(null)), readY(trapped)); // expect: undefined 42
var sets = [];
var setTrap = new Proxy({}, { set: function (t, k) { sets.push(k); return true; } });
function writeZ(z) { z.z = 1; }
writeZ(Object.create(null));
writeZ(Object.create(null));
writeZ(setTrap);
print(sets.join(), Object.keys(setTrap).length); // expect: z 0
var T = Object.create(null);
function setLength(z) { z.length = 3; }
setLength(Object.create(T));
var five = [1, 2, 3, 4, 5];
Object.setPrototypeOf(five, T);
setLength(five);
print(five.length, Object.keys(five).length); // expect: 3 3

// Built-ins read through the same cache: an absent property stays absent only until
// it is added (to the object or to a prototype).
var P = {};
var child = Object.create(P);
print(Reflect.get(child, "w")); // expect: undefined
P.w = "from proto";
print(Reflect.get(child, "w"), [child].map(function (c) { return c.w; })[0]); // expect: from proto from proto
var iterable = Object.create(null);
try { Array.from({ length: 1, 0: "a" }); new Map(iterable); } catch (e) { print(e.constructor.name); } // expect: TypeError
iterable[Symbol.iterator] = function* () { yield ["k", "v"]; };
print(new Map(iterable).get("k")); // expect: v
var proxied = new Proxy(Object.create(null), { get: function (t, k) { return k === Symbol.iterator ? iterable[Symbol.iterator] : undefined; } });
print(new Map(proxied).size); // expect: 1

// A getter found on a prototype is cached where it is stored: a read calls whatever
// getter the accessor holds now, and a prototype that changes the property (to another
// getter, to data, or away) is read again.
class Temperature {
  constructor(c) { this.c = c; }
  get f() { return this.c * 9 / 5 + 32; }
}
function fahrenheit(t) { return t.f; }
var temps = [new Temperature(0), new Temperature(100)];
print(fahrenheit(temps[0]), fahrenheit(temps[1])); // expect: 32 212
Object.defineProperty(Temperature.prototype, "f", { get: function () { return "replaced"; }, configurable: true });
print(fahrenheit(temps[0])); // expect: replaced
Object.defineProperty(Temperature.prototype, "f", { value: "data", configurable: true });
print(fahrenheit(temps[1])); // expect: data
Object.defineProperty(Temperature.prototype, "f", { set: function () {}, configurable: true });
print(fahrenheit(temps[1])); // expect: undefined
delete Temperature.prototype.f;
print(fahrenheit(temps[0])); // expect: undefined
Object.defineProperty(Temperature.prototype, "f", { get: function () { return this.c; }, configurable: true });
var shadowed = new Temperature(7);
print(fahrenheit(shadowed)); // expect: 7
Object.defineProperty(shadowed, "f", { value: "own" });
print(fahrenheit(shadowed), fahrenheit(new Temperature(8))); // expect: own 8
var thrower = Object.create({ get boom() { throw new RangeError("from getter"); } });
function boom(o) { return o.boom; }
for (var i = 0; i < 2; i++) { try { boom(thrower); } catch (e) { print(e.message); } } // expect: from getter
// expect: from getter

// A typed array's length is a built-in getter on %TypedArray%.prototype.
function size(ta) { return ta.length; }
var bytes = new Uint8Array(16);
var words = new Int32Array(bytes.buffer, 4, 2);
print(size(bytes), size(words), size(new Float64Array(3))); // expect: 16 2 3
bytes.buffer.transfer();
print(size(bytes), size(words)); // expect: 0 0
var resizable = new ArrayBuffer(4, { maxByteLength: 16 });
var tracking = new Uint8Array(resizable);
print(size(tracking)); // expect: 4
resizable.resize(12);
print(size(tracking)); // expect: 12

// An own getter is cached by the receiver's shape; one that replaces itself with a data
// property (a lazily computed field) leaves a shape the cache no longer matches.
function lazy(o, key, compute) {
  Object.defineProperty(o, key, {
    get: function () { var v = compute(); Object.defineProperty(this, key, { value: v }); return v; },
    configurable: true,
  });
  return o;
}
var computed = 0;
function shapeOf(o) { return o.shape; }
var schemas = [lazy({}, "shape", function () { return ++computed; }), lazy({}, "shape", function () { return ++computed; })];
print(shapeOf(schemas[0]), shapeOf(schemas[0]), shapeOf(schemas[1]), shapeOf(schemas[1]), computed); // expect: 1 1 2 2 2
var counter = { n: 0, get next() { return ++this.n; } };
function next(o) { return o.next; }
print(next(counter), next(counter), next(counter)); // expect: 1 2 3

// Reconfiguring a property, sealing, freezing and preventing extensions keep an object
// in shape mode: its shape has the new attributes in the same slots, and caches made for
// other objects of its old shape stop applying.
var conf = { a: 1, b: 2, c: 3 };
function setA(o, v) { o.a = v; }
function readA(o) { return o.a; }
setA(conf, 10);
Object.defineProperty(conf, "a", { enumerable: false });
setA(conf, 20);
print(readA(conf), Object.keys(conf).join(), Object.getOwnPropertyNames(conf).join()); // expect: 20 b,c a,b,c
Object.defineProperty(conf, "a", { writable: false });
setA(conf, 30);
print(readA(conf), (function () { "use strict"; try { conf.a = 40; } catch (e) { return e.constructor.name; } })()); // expect: 20 TypeError
Object.defineProperty(conf, "b", { get: function () { return "getter"; } });
print(conf.b, JSON.stringify(Object.getOwnPropertyDescriptor(conf, "a"))); // expect: getter {"value":20,"writable":false,"enumerable":false,"configurable":true}
function addX(o) { o.x = 1; }
addX({});
addX({});
var closed = Object.preventExtensions({});
addX(closed);
print(closed.x, Object.isExtensible(closed), Object.keys(closed).length); // expect: undefined false 0
var sealed = Object.seal({ x: 0, y: 0 });
function setY(o) { o.y = 5; }
setY({ x: 0, y: 0 });
setY(sealed);
delete sealed.y;
addX(sealed);
print(sealed.x, sealed.y, Object.isSealed(sealed), Object.isFrozen(sealed)); // expect: 1 5 true false
var frozen = Object.freeze({ x: 0, y: 0 });
setY(frozen);
print(frozen.y, Object.isFrozen(frozen), (function () { "use strict"; try { setYStrict(frozen); } catch (e) { return e.constructor.name; } function setYStrict(o) { o.y = 6; } })()); // expect: 0 true TypeError
var base = { m: "data" };
var heir = Object.create(base);
function readM(o) { return o.m; }
print(readM(heir)); // expect: data
Object.defineProperty(base, "m", { get: function () { return "accessor"; } });
print(readM(heir)); // expect: accessor
Object.freeze(base);
print(readM(heir), Object.isFrozen(base)); // expect: accessor true
var order = { p: 1, q: 2, r: 3 };
Object.freeze(order);
print(Object.keys(order).join(), JSON.stringify(order)); // expect: p,q,r {"p":1,"q":2,"r":3}

// Objects in dictionary mode (too many properties for a shape, or a deleted one) are
// read through the position of the key's entry, checked against the key each time.
function wide(prefix) {
  var o = {};
  for (var i = 0; i < 200; i++) o[prefix + i] = i;
  return o;
}
var lib = wide("f");
lib.map = "lib.map";
Object.defineProperty(lib, "lazy", { get: function () { return "lazy " + this.f1; }, configurable: true });
function readMap(o) { return o.map; }
function readLazy(o) { return o.lazy; }
print(readMap(lib), readMap(lib), readLazy(lib), readLazy(lib)); // expect: lib.map lib.map lazy 1 lazy 1
var other = wide("g");
other.map = "other.map";
print(readMap(other), readMap({ map: "shaped" }), readMap(Object.create(lib))); // expect: other.map shaped lib.map
delete lib.f0;
delete lib.map;
print(readMap(lib), readMap(other)); // expect: undefined other.map
lib.map = "again";
Object.defineProperty(lib, "lazy", { value: "now data" });
print(readMap(lib), readLazy(lib), readLazy(lib)); // expect: again now data now data
var holey = { a: 1, b: 2, map: "holey" };
delete holey.a;
print(readMap(holey), Object.keys(holey).join()); // expect: holey b,map
var dictArray = [1, 2];
for (var d = 0; d < 150; d++) dictArray["p" + d] = d;
function readLength(o) { return o.length; }
print(readLength(lib), readLength(dictArray), readLength(dictArray)); // expect: undefined 2 2

// Methods read from string primitives are cached at the site as String.prototype's;
// every change to String.prototype and every other kind of receiver must still be seen.
function codeAt(s) { return s.charCodeAt(0); }
function twice(f, x) { return f(x) + "," + f(x); }
print(twice(codeAt, "a"), twice(codeAt, "bc")); // expect: 97,97 98,98
var savedCharCodeAt = String.prototype.charCodeAt;
String.prototype.charCodeAt = function () { return "patched " + typeof this; };
print(codeAt("a")); // expect: patched object
String.prototype.charCodeAt = savedCharCodeAt;
print(codeAt("z"), codeAt(new String("y")), codeAt({ charCodeAt: () => "own" })); // expect: 122 121 own
function lengthOf(s) { return s.length; }
print(lengthOf("four"), lengthOf("four"), lengthOf(""), lengthOf([1, 2])); // expect: 4 4 0 2
function extra(s) { return s.extra; }
print(extra("s"), extra("s")); // expect: undefined undefined
String.prototype.extra = "added";
print(extra("s")); // expect: added
Object.defineProperty(String.prototype, "extra", {
  get() { "use strict"; return typeof this + ":" + this; },
  configurable: true,
});
print(extra("s"), extra("t")); // expect: string:s string:t
Object.prototype.fromObject = "inherited";
function fromObject(s) { return s.fromObject; }
print(fromObject("s"), fromObject("s")); // expect: inherited inherited
delete Object.prototype.fromObject;
print(fromObject("s")); // expect: undefined
function methodOf(v) { return v.toString; }
print(methodOf("s") === String.prototype.toString, methodOf(1) === Number.prototype.toString, methodOf(true) === Boolean.prototype.toString); // expect: true true true
try { methodOf(null); } catch (e) { print(e.constructor.name); } // expect: TypeError

// A site that sees a few shapes keeps an entry for each: reads of own, inherited,
// absent and getter properties, writes and adds, each through the right entry, and
// an entry that stops applying (a prototype changed) is replaced, not trusted.
function Point(x) { this.x = x; }
Point.prototype.kind = "point";
function Box(x) { this.w = 1; this.x = x; }
Box.prototype.kind = "box";
var withGetter = { get x() { return "got " + this.tag; }, tag: "g" };
var polyObjects = [new Point(1), new Box(2), { x: 3, y: 0 }, Object.create(withGetter), { y: 1 }];
function readX(o) { return o.x; }
function readKind(o) { return o.kind; }
var seen = [];
for (var round = 0; round < 3; round++) {
  for (var i = 0; i < polyObjects.length; i++) seen.push(readX(polyObjects[i]));
}
print(seen.slice(0, 5).join()); // expect: 1,2,3,got g,
print(seen.slice(10).join()); // expect: 1,2,3,got g,
withGetter.tag = "h";
print(readX(polyObjects[3]), readKind(polyObjects[0]), readKind(polyObjects[1]), readKind(polyObjects[2])); // expect: got h point box undefined
Box.prototype.kind = "crate";
Object.prototype.kind = "anything";
print(readKind(polyObjects[0]), readKind(polyObjects[1]), readKind(polyObjects[2])); // expect: point crate anything
delete Object.prototype.kind;
print(readKind(polyObjects[2])); // expect: undefined
Object.defineProperty(withGetter, "x", { value: "data now" });
print(readX(polyObjects[3])); // expect: data now

// Writes and adds at a site of a few shapes: each shape's own transition.
function setZ(o, v) { o.z = v; }
function makeZ(i) {
  switch (i % 3) {
    case 0: return { a: i };
    case 1: return { b: i, c: i };
    default: return new Point(i);
  }
}
var zs = [];
for (var i = 0; i < 12; i++) { var o = makeZ(i); setZ(o, i * 10); setZ(o, i * 10 + 1); zs.push(o); }
print(zs.map(function (o) { return Object.keys(o).join(":") + "=" + o.z; }).slice(0, 4).join(" ")); // expect: a:z=1 b:c:z=11 x:z=21 a:z=31
var frozenZ = Object.freeze({ a: 0 });
setZ(frozenZ, 5);
var sealedZ = Object.seal({ b: 0, c: 0 });
setZ(sealedZ, 6);
print(frozenZ.z, sealedZ.z, Object.keys(sealedZ).join()); // expect: undefined undefined b,c

// Object literals made at one site with objects of a few shapes spread in first.
function literal(base, v) { return { ...base, tail: v }; }
var lits = [{}, { a: 1 }, { a: 1, b: 2 }, { c: 3 }].map(function (b, i) { return literal(b, i); });
lits.push(literal(Object.preventExtensions({ d: 4 }), 9));
print(lits.map(function (o) { return Object.keys(o).join("") + o.tail; }).join(" ")); // expect: tail0 atail1 abtail2 ctail3 dtail9

// Arrays, strings and proxies mixed at a site of a few ordinary shapes: `length` is
// theirs, never an entry made for an ordinary object.
function lengthOf(o) { return o.length; }
var lengthy = [{ length: 7 }, [1, 2], { length: "s", other: 1 }, new Proxy({}, { get: function () { return "trap"; } }), [], "abc"];
var lengths = [];
for (var round = 0; round < 2; round++) lengthy.forEach(function (o) { lengths.push(lengthOf(o)); });
print(lengths.slice(6).join()); // expect: 7,2,s,trap,0,3

// A prototype with very many methods is in dictionary mode; reads through it are cached
// by where its dictionary keeps the key, and every change to it is seen.
function Parser(n) { this.n = n; }
for (var i = 0; i < 200; i++) Parser.prototype["m" + i] = (function (i) { return function () { return i + this.n; }; })(i);
function Sub(n) { Parser.call(this, n); }
Sub.prototype = Object.create(Parser.prototype);
function callM5(o) { return o.m5(); }
function readMissing(o) { return o.missing; }
var parsers = [new Parser(1000), new Sub(2000)];
var dictSeen = [];
for (var round = 0; round < 3; round++) parsers.forEach(function (p) { dictSeen.push(callM5(p), readMissing(p)); });
print(dictSeen.slice(8).join()); // expect: 1005,,2005,
Parser.prototype.m5 = function () { return "replaced"; };
print(callM5(parsers[0]), callM5(parsers[1])); // expect: replaced replaced
Sub.prototype.m5 = function () { return "shadowed"; };
print(callM5(parsers[0]), callM5(parsers[1])); // expect: replaced shadowed
delete Parser.prototype.m5;
Object.prototype.m5 = function () { return "from Object.prototype"; };
print(callM5(parsers[0])); // expect: from Object.prototype
delete Object.prototype.m5;
Object.defineProperty(Parser.prototype, "m5", { get: function () { return function () { return "getter"; }; }, configurable: true });
print(callM5(parsers[0])); // expect: getter
Parser.prototype.missing = "now present";
print(readMissing(parsers[0]), readMissing(parsers[1])); // expect: now present now present
Object.setPrototypeOf(Sub.prototype, { missing: "new chain" });
print(readMissing(parsers[1]), parsers[1] instanceof Parser); // expect: new chain false
