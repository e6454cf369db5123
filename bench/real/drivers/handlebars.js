// handlebars: compile a template with partials, helpers, loops and conditionals, and
// render it for generated orders.
var random = new Random(3);
var orders = generateOrders(random, 300);
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
