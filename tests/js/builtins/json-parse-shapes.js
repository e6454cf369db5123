// JSON.parse builds each object from the shape its keys lead to, found by the keys'
// text among the shape's transitions: order, duplicates, index keys, many keys and
// escaped keys must all come out as CreateDataProperty puts them.
const rows = JSON.parse('[{"a":1,"b":2},{"b":3,"a":4},{"a":5,"b":6,"c":7},{"a":8}]');
print(rows.map((r) => Object.keys(r).join("")).join(" ")); // expect: ab ba abc a
print(JSON.stringify(JSON.parse('{"a":1,"b":2,"a":3}'))); // expect: {"a":3,"b":2}
print(JSON.stringify(JSON.parse('{"\\u0061":1,"a":2,"b":"\\u0062"}'))); // expect: {"a":2,"b":"b"}
print(Object.keys(JSON.parse('{"x":1,"1":2,"y":3,"0":4}')).join()); // expect: 0,1,x,y
const proto = JSON.parse('{"__proto__":{"p":1},"q":2}');
print(Object.getPrototypeOf(proto) === Object.prototype, proto.__proto__.p, proto.q); // expect: true 1 2
const many = [];
for (let i = 0; i < 130; i++) many.push(`"k${i}":${i}`);
const wide = JSON.parse(`{${many.join(",")},"k3":"again"}`);
print(Object.keys(wide).length, wide.k3, wide.k129, Object.keys(wide)[3]); // expect: 130 again 129 k3
const later = JSON.parse('{"a":1,"b":2}');
later.c = 3;
delete later.a;
print(JSON.stringify(later), JSON.stringify(JSON.parse('{"a":1,"b":2}'))); // expect: {"b":2,"c":3} {"a":1,"b":2}
print(JSON.stringify(JSON.parse('[[],{},[{"a":[{}]}]]'))); // expect: [[],{},[{"a":[{}]}]]
const revived = JSON.parse('{"a":1,"b":{"a":2},"a":3}', (k, v) => (typeof v === "number" ? v * 10 : v));
print(JSON.stringify(revived)); // expect: {"a":30,"b":{"a":20}}
// numbers: the short decimal path and the general one agree with the decimal text
const numbers = ["0.1", "-0.0", "17.99", "999999999999999.9", "1234567.8901234", "12345678.90123456", "1e-7", "-2.5E+3"];
print(numbers.map((n) => JSON.parse(n) === Number(n) && Object.is(JSON.parse(n), Number(n))).join()); // expect: true,true,true,true,true,true,true,true
