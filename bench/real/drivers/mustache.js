// mustache: render a template with sections, inverted sections and escaping for
// generated orders.
var random = new Random(3);
var orders = [];
for (var i = 0; i < 300; i++) {
  var lines = [];
  for (var j = 0; j < 1 + random.int(8); j++) {
    lines.push({ sku: "SKU-" + random.int(10000), title: words(random, 3), qty: 1 + random.int(5), price: (random.int(10000) / 100).toFixed(2) });
  }
  orders.push({ id: i, customer: { name: words(random, 2), vip: random.int(4) === 0 }, lines: lines, note: random.int(3) ? "" : words(random, 6) + " <b>&</b>" });
}
var template =
  "<h1>Order {{id}} for {{customer.name}}{{#customer.vip}} (VIP){{/customer.vip}}</h1>\n" +
  "<table>{{#lines}}<tr><td>{{sku}}</td><td>{{title}}</td><td>{{qty}}</td><td>{{price}}</td></tr>{{/lines}}</table>\n" +
  "{{#note}}<p>{{note}}</p>{{/note}}{{^note}}<p>no note</p>{{/note}}\n";
var ROUNDS = 12;
var h = 0x811c9dc5;
var length = 0;
for (var round = 0; round < ROUNDS; round++) {
  for (var o = 0; o < orders.length; o++) {
    var html = Mustache.render(template, orders[o]);
    if (round === 0) { h = hash(html, h); length += html.length; }
  }
}
emit("mustache " + length + " " + hex(h));
