// handlebars: compile a template with partials, helpers, loops and conditionals, and
// render it for generated orders.
var random = new Random(3);
var orders = [];
for (var i = 0; i < 300; i++) {
  var lines = [];
  for (var j = 0; j < 1 + random.int(8); j++) {
    lines.push({ sku: "SKU-" + random.int(10000), title: words(random, 3), qty: 1 + random.int(5), price: random.int(10000) / 100 });
  }
  orders.push({ id: i, customer: { name: words(random, 2), vip: random.int(4) === 0 }, lines: lines, note: random.int(3) ? "" : words(random, 6) + " <b>&</b>" });
}
Handlebars.registerHelper("money", function (n) { return n.toFixed(2); });
Handlebars.registerHelper("total", function (lines) {
  var t = 0;
  for (var k = 0; k < lines.length; k++) t += lines[k].qty * lines[k].price;
  return t.toFixed(2);
});
Handlebars.registerPartial("line", "<tr><td>{{sku}}</td><td>{{title}}</td><td>{{qty}}</td><td>{{money price}}</td></tr>");
var template = Handlebars.compile(
  "<h1>Order {{id}} for {{customer.name}}{{#if customer.vip}} (VIP){{/if}}</h1>\n" +
  "<table>{{#each lines}}{{> line}}{{/each}}</table>\n" +
  "{{#if note}}<p>{{note}}</p>{{else}}<p>no note</p>{{/if}}<p>Total {{total lines}}</p>\n");
var ROUNDS = 12;
var h = 0x811c9dc5;
var length = 0;
for (var round = 0; round < ROUNDS; round++) {
  for (var o = 0; o < orders.length; o++) {
    var html = template(orders[o]);
    if (round === 0) { h = hash(html, h); length += html.length; }
  }
}
emit("handlebars " + length + " " + hex(h));
