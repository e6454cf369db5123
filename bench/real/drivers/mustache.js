// mustache: render a template with sections, inverted sections and escaping for
// generated orders.
var random = new Random(3);
var orders = generateOrders(random, 300);
for (var i = 0; i < orders.length; i++) {
  for (var j = 0; j < orders[i].lines.length; j++) orders[i].lines[j].price = orders[i].lines[j].price.toFixed(2);
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
