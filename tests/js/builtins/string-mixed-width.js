// One-byte and two-byte strings compare, sort and concatenate by code units.
const wide = "abc\u0100";
print("abd" > wide, wide < "abd", "ab" < wide, "abc" < wide); // expect: true true true true
print(["\u0101", "b", "a\u0100", "a", "\u00ff"].sort().map((s) => s.charCodeAt(s.length - 1)).join()); // expect: 97,256,98,255,257
print(["b", "\u0100", "a"].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)).join("") === "ab\u0100"); // expect: true
let s = "";
for (let i = 0; i < 40; i++) s += i % 10 === 9 ? "\u0100" : "x";
print(s.length, s.indexOf("\u0100"), s.charCodeAt(39), s.slice(8, 11) === "x\u0100x"); // expect: 40 9 256 true
print(("\u00e9" + "a".repeat(30)) === ("\u00e9" + "a".repeat(30)), "a\u0100" === "a" + "\u0100"); // expect: true true
