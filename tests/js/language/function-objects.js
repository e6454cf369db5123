// A fresh function's own properties, seen first in each way a program can look at them:
// the `prototype` object is one object, linked back to its function, whichever comes first.
"use strict";
function viaIdentity() {}
print(viaIdentity.prototype === viaIdentity.prototype, viaIdentity.prototype.constructor === viaIdentity); // expect: true true
function viaNames() {}
print(Object.getOwnPropertyNames(viaNames).join(), Reflect.ownKeys(viaNames).length); // expect: length,name,prototype 3
function viaDescriptor() {}
var d = Object.getOwnPropertyDescriptor(viaDescriptor, "prototype");
print(d.writable, d.enumerable, d.configurable, d.value === viaDescriptor.prototype); // expect: true false false true
print(Object.keys(viaDescriptor.prototype).length, Object.getOwnPropertyNames(viaDescriptor.prototype).join()); // expect: 0 constructor
function viaDelete() {}
print(Reflect.deleteProperty(viaDelete, "prototype"), typeof viaDelete.prototype); // expect: false object
function viaDefine() {}
var replacement = { replaced: true };
Object.defineProperty(viaDefine, "prototype", { value: replacement });
print(viaDefine.prototype === replacement, new viaDefine().replaced); // expect: true true
function viaDefineAttributes() {}
Object.defineProperty(viaDefineAttributes, "prototype", { writable: false });
var kept = viaDefineAttributes.prototype;
print(kept.constructor === viaDefineAttributes, Object.getOwnPropertyDescriptor(viaDefineAttributes, "prototype").writable); // expect: true false
function viaNew() { this.made = 1; }
var made = new viaNew();
print(Object.getPrototypeOf(made) === viaNew.prototype, made instanceof viaNew, made.constructor === viaNew); // expect: true true true
function viaInstanceof() {}
print({} instanceof viaInstanceof, Object.create(viaInstanceof.prototype) instanceof viaInstanceof); // expect: false true
function viaReflectConstruct() {}
var constructed = Reflect.construct(Object, [], viaReflectConstruct);
print(Object.getPrototypeOf(constructed) === viaReflectConstruct.prototype); // expect: true
function viaFreeze() {}
Object.freeze(viaFreeze);
print(Object.isFrozen(viaFreeze), Object.isFrozen(viaFreeze.prototype), viaFreeze.prototype === viaFreeze.prototype); // expect: true false true
print(Object.getOwnPropertyDescriptor(viaFreeze, "prototype").writable, new viaFreeze() instanceof viaFreeze); // expect: false true
function viaAssignment() {}
viaAssignment.prototype = null;
print(Object.getPrototypeOf(new viaAssignment()) === Object.prototype); // expect: true
function viaIn() {}
print("prototype" in viaIn, viaIn.hasOwnProperty("prototype"), Object.prototype.propertyIsEnumerable.call(viaIn, "prototype")); // expect: true true false
function viaForIn() {}
var enumerated = [];
for (var k in viaForIn) enumerated.push(k);
print(enumerated.length, JSON.stringify(viaForIn), Object.entries(viaForIn).length); // expect: 0 undefined 0
function viaAssign() {}
var copy = Object.assign({}, viaAssign);
print(Object.keys(copy).length, typeof Object.getOwnPropertyDescriptors(viaAssign).prototype.value); // expect: 0 object
// A property cache that has seen one function's `prototype` reads each function's own.
function readPrototype(f) { return f.prototype; }
var fresh = [];
for (var i = 0; i < 4; i++) fresh.push(function () {});
print(fresh.every(function (f) { return readPrototype(f).constructor === f; }), readPrototype(fresh[0]) !== readPrototype(fresh[1])); // expect: true true
// Functions without a `prototype`: arrows, methods, async functions.
print([() => 0, { m() {} }.m, async function () {}].map(function (f) { return f.hasOwnProperty("prototype"); }).join()); // expect: false,false,false
// Generators have a `prototype` that inherits from %GeneratorPrototype% and has no `constructor`.
function* generator() {}
print(Object.getPrototypeOf(generator.prototype) === Object.getPrototypeOf(function* () {}).prototype, generator.prototype.hasOwnProperty("constructor")); // expect: true false
// Methods remember their home object for `super`, class constructors their field initialiser.
var base = { greet() { return "base"; } };
var derived = { __proto__: base, greet() { return "derived+" + super.greet(); } };
class Fields { a = 1; b = this.a + 1; static s = 3; method() { return this.b; } }
print(derived.greet(), new Fields().method(), Fields.s, new Fields().a); // expect: derived+base 2 3 1
