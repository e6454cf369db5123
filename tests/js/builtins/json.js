// JSON.parse and JSON.stringify.
print(JSON.stringify({ a: [1, "x", null, undefined, () => 1], b: { c: true }, d: undefined })); // expect: {"a":[1,"x",null,null,null],"b":{"c":true}}
print(JSON.stringify([NaN, Infinity, -0, 1e21, new Number(3), new String("s"), Object(false)])); // expect: [null,null,0,1e+21,3,"s",false]
print(JSON.stringify("\u2028") === '"\u2028"', JSON.stringify("\ud800\udc00\udc00\n\"\\"), JSON.stringify("\u0007")); // expect: true "𐀀\udc00\n\"\\" "\u0007"
print(JSON.stringify(undefined), JSON.stringify(() => 1), JSON.stringify(Symbol()), JSON.stringify(null)); // expect: undefined undefined undefined null
print(JSON.stringify({ b: 1, a: 2, 1: 3, [Symbol()]: 4 })); // expect: {"1":3,"b":1,"a":2}
print(JSON.stringify({ a: 1, b: 2, c: { a: 3, d: 4 } }, ["a", "c"])); // expect: {"a":1,"c":{"a":3}}
print(JSON.stringify({ a: 1, b: "x" }, (k, v) => (typeof v === "number" ? v + 1 : v))); // expect: {"a":2,"b":"x"}
print(JSON.stringify({ toJSON(key) { return "key:" + key; } }), JSON.stringify({ x: { toJSON: (k) => k } })); // expect: "key:" {"x":"x"}
print(JSON.stringify({ a: [1, { b: 2 }], c: [] , d: {} }, null, 2)); // expect: {
// expect:   "a": [
// expect:     1,
// expect:     {
// expect:       "b": 2
// expect:     }
// expect:   ],
// expect:   "c": [],
// expect:   "d": {}
// expect: }
print(JSON.stringify([1], null, "--------------x"), JSON.stringify([1], null, 20) === JSON.stringify([1], null, 10)); // expect: [
// expect: ----------1
// expect: ] true
const cyclic = { a: {} };
cyclic.a.self = cyclic;
try { JSON.stringify(cyclic); } catch (e) { print(e.name, e.message); } // expect: TypeError Converting circular structure to JSON
try { JSON.stringify({ n: 1n }); } catch (e) { print(e.name); } // expect: TypeError
let deep = [];
for (let i = 0; i < 100000; i++) deep = [deep];
try { JSON.stringify(deep); } catch (e) { print(e.name); } // expect: RangeError

print(JSON.stringify(JSON.parse(' {"a": [1, -2.5e1, true, false, null, "\\u0041\\n"], "a": 2, "__proto__": 3} '))); // expect: {"a":2,"__proto__":3}
print(JSON.parse("-0") === 0 && 1 / JSON.parse("-0") < 0, JSON.parse('"\\ud800"').length, JSON.parse("1E2")); // expect: true 1 100
for (const bad of ["", "[1,]", "{'a':1}", "01", "1.", "[1] x", '"\t"', "tru", '"\\x"', "{\"a\" 1}", "+1", ".5"]) {
  try { JSON.parse(bad); print("parsed", bad); } catch (e) { if (!(e instanceof SyntaxError)) print("wrong error", bad); }
}
try { JSON.parse("[1, 2,]"); } catch (e) { print(e.message); } // expect: Unexpected token ']' in JSON at position 6 (line 1 column 7)
try { JSON.parse('{"a":\n tru}'); } catch (e) { print(e.message); } // expect: Unexpected token '}' in JSON at position 10 (line 2 column 5)
try { JSON.parse("[".repeat(100000)); } catch (e) { print(e.name); } // expect: SyntaxError
print(JSON.parse("[".repeat(5000) + "]".repeat(5000)).length); // expect: 1

// reviver: bottom-up, deletes undefined results, this is the holder
const revived = JSON.parse('{"a": [1, 2], "b": {"c": 3}}', function (k, v) {
  if (k === "c") return undefined;
  if (typeof v === "number") return v * 10;
  return v;
});
print(JSON.stringify(revived)); // expect: {"a":[10,20],"b":{}}
const order = [];
JSON.parse('{"x": [0], "y": 1}', (k, v) => { order.push(k); return v; });
print(order.join(",")); // expect: 0,x,y,
print(Object.prototype.toString.call(JSON), JSON.parse.length, JSON.stringify.length); // expect: [object JSON] 2 3

// Source text for revivers; raw JSON text in stringify.
print(JSON.parse('[1.0, "a", 9007199254740993]', (k, v, { source }) => (source === undefined ? v : source)).join("|")); // expect: 1.0|"a"|9007199254740993
print(JSON.stringify({ big: JSON.rawJSON("12345678901234567890") })); // expect: {"big":12345678901234567890}
print(JSON.isRawJSON(JSON.rawJSON("null")), JSON.isRawJSON({})); // expect: true false
try { JSON.rawJSON("{}"); } catch (e) { print(e.name); } // expect: SyntaxError

// One-byte and two-byte texts parse alike; values without escapes are pieces of the text.
const wide = '{"ключ": "значение", "k\\u0065y": "v\\u00e9", "long": "' + "x".repeat(100) + '"}';
const parsedWide = JSON.parse(wide);
print(parsedWide["ключ"], parsedWide.key, parsedWide.long.length, JSON.parse('["\u00e9\u00ff", "\\/"]').join()); // expect: значение vé 100 éÿ,/
print(JSON.stringify(JSON.parse('{"0": 1, "4294967295": 2, "01": 3, "b": 4, "1": 5}'))); // expect: {"0":1,"1":5,"4294967295":2,"01":3,"b":4}
print(JSON.parse("123456789012345"), JSON.parse("-1234567890123456789"), JSON.parse("9007199254740993"), 1 / JSON.parse("-0")); // expect: 123456789012345 -1234567890123456800 9007199254740992 -Infinity

// What a getter, a toJSON on a prototype, a proxy or a deleted property changes is seen.
print(JSON.stringify({ get a() { return 1; }, b: -2147483648, c: 2147483647 })); // expect: {"a":1,"b":-2147483648,"c":2147483647}
const shrinking = { a: { toJSON() { delete shrinking.b; shrinking.c = 9; return "A"; } }, b: 2, c: 3 };
print(JSON.stringify(shrinking)); // expect: {"a":"A","c":9}
Object.prototype.toJSON = function () { return "proto"; };
print(JSON.stringify({ a: {} }), JSON.stringify([[]])); // expect: "proto" "proto"
delete Object.prototype.toJSON;
Array.prototype.toJSON = () => "array";
print(JSON.stringify({ a: [1] })); // expect: {"a":"array"}
delete Array.prototype.toJSON;
print(JSON.stringify(new Proxy({ a: 1 }, { get: (t, k) => (k === "a" ? 2 : t[k]) }))); // expect: {"a":2}
const dict = { a: 1, b: 2, c: 3 };
delete dict.b;
print(JSON.stringify(dict), JSON.stringify(Object.defineProperty({ a: 1 }, "h", { value: 2, enumerable: false }))); // expect: {"a":1,"c":3} {"a":1}
const quoted = JSON.stringify("\x00\x1f\x7f\xff\"\\");
print(quoted.slice(0, 13), [...quoted.slice(13)].map((c) => c.charCodeAt(0).toString(16)).join(" "), JSON.stringify("\ud800\u0100")); // expect: "\u0000\u001f 7f ff 5c 22 5c 5c 22 "\ud800Ā"
