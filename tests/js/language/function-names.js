// Anonymous functions take the name of what they are assigned to, with exceptions.
var f, g;
(f) = function () {};
g = function () {};
print(JSON.stringify(f.name), g.name); // expect: "" g
// `__proto__: value` names nothing and sets the prototype without Object.prototype.__proto__.
var o = { __proto__: function () {} };
print(JSON.stringify(Object.getPrototypeOf(o).name), o.hasOwnProperty("__proto__")); // expect: "" false
var nullProto = { __proto__: null, ignored: { __proto__: 1 } };
print(Object.getPrototypeOf(nullProto), Object.getPrototypeOf(nullProto.ignored) === Object.prototype); // expect: null true
// Anonymous classes under a computed key are named by it, unless they define a static name.
var sym = Symbol("s");
var c = { [sym]: class {}, ["k"]: class { static name() {} } };
print(c[sym].name, typeof c.k.name); // expect: [s] function
