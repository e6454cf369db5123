// `typeof x === "name"` is tested without making the name string. It must answer as
// `typeof` then `===` would: for every kind of value, either way round, negated, with
// `==`, for names `typeof` never gives, and without throwing for an undeclared name.
var values = [undefined, null, true, 1, 1.5, "s", Symbol("y"), 1n, {}, [], function () {}, class {}, new Proxy(function () {}, {}), new Proxy({}, {})];
var names = ["undefined", "object", "boolean", "number", "string", "symbol", "bigint", "function"];
print(values.map((v) => names.filter((n) => typeof v === n).join("")).join()); // expect: undefined,object,boolean,number,number,string,symbol,bigint,object,object,function,function,function,object
print(values.filter((v) => "object" == typeof v).length, values.filter((v) => typeof v !== "function").length); // expect: 4 11
print(values.filter((v) => typeof v != "number").length, values.filter((v) => (typeof v) === ("string")).length); // expect: 12 1
print(typeof notDeclaredAnywhere === "undefined", typeof notDeclaredAnywhere != "undefined"); // expect: true false
print(values.filter((v) => typeof v === "Object").length, values.filter((v) => typeof v !== "null").length); // expect: 0 14
let seen = 0;
const counted = { get v() { seen++; return 1; } };
print(typeof counted.v === "number", seen); // expect: true 1
let t = "string";
print(typeof t === t, typeof t === typeof "x"); // expect: true true
try {
  print(typeof later === "undefined");
  let later = 1;
} catch (e) {
  print(e.constructor.name); // expect: ReferenceError
}
