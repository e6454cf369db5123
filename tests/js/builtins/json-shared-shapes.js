// JSON.stringify reads the values of plain objects from their slots while their shape
// holds; a toJSON or getter that changes an object sends it back to Get.
const rows = [{ a: 1, b: "x" }, { a: 2, b: "y" }, { a: 3, b: "z" }];
print(JSON.stringify(rows)); // expect: [{"a":1,"b":"x"},{"a":2,"b":"y"},{"a":3,"b":"z"}]
const holder = { a: { toJSON() { delete holder.b; holder.c = 9; return "A"; } }, b: 2, c: 3 };
print(JSON.stringify(holder)); // expect: {"a":"A","c":9}
const changed = { a: { toJSON() { changed.b = "new"; return 1; } }, b: "old" };
print(JSON.stringify(changed)); // expect: {"a":1,"b":"new"}
const withGetter = { a: 1, get b() { withGetter.c = 30; return 2; }, c: 3 };
print(JSON.stringify(withGetter)); // expect: {"a":1,"b":2,"c":30}
const hidden = { a: 1, b: 2 };
Object.defineProperty(hidden, "b", { enumerable: false });
print(JSON.stringify([hidden, { a: 1, b: 2 }])); // expect: [{"a":1},{"a":1,"b":2}]
Object.prototype.toJSON = function () { return "proto"; };
print(JSON.stringify([{ a: 1 }, { a: 2 }]), JSON.stringify({ x: { a: 1 } }.x)); // expect: "proto" "proto"
delete Object.prototype.toJSON;
print(JSON.stringify({ s: "tab\there \"q\" back\\slash \u0001 é end" })); // expect: {"s":"tab\there \"q\" back\\slash \u0001 é end"}
print(JSON.stringify("\"\"\\"), JSON.stringify("plain")); // expect: "\"\"\\" "plain"
