// JSON.parse of object-heavy text, for instruction counts against QuickJS-NG:
//   valgrind --tool=callgrind --toggle-collect='kiln::builtins::json::parse' kiln run parse.js
//   valgrind --tool=callgrind --toggle-collect=js_json_parse kiln-quickjs parse.js
// Records shaped like bench/serve/order.json: 200 of them (65 KB, parsed 40 times), or 4
// (1.3 KB, parsed 2000 times) in a copy with KIND set to "small":
//   sed 's/^const KIND = "large"/const KIND = "small"/' parse.js > parse-small.js
const KIND = "large";
function record(i) {
  return {
    id: "ord-2026-" + i,
    customer: { name: "Ada Lovelace " + i, email: "ada" + i + "@example.com", tier: i % 3 ? "gold" : "silver" },
    items: [
      { sku: "sku-" + i + "-widget", price: 3.5 + i, quantity: i % 7, note: "handle with care" },
      { sku: "sku-" + i + "-gadget", price: 0.25 * i, quantity: 2, note: "fragile \"glass\"" },
    ],
    tags: ["express", "gift", "eu"],
    paid: i % 2 === 0,
    coupon: null,
  };
}
const value = KIND === "small" ? [record(1), record(2), record(3), record(4)] : Array.from({ length: 200 }, (_, i) => record(i));
const text = JSON.stringify(value);
const runs = KIND === "small" ? 2000 : 40;
let keep = 0;
for (let r = 0; r < runs; r++) keep += JSON.parse(text).length;
console.log(text.length, keep);
