// ejs: compile an Embedded JavaScript template and render it for generated orders.
var random = new Random(3);
var orders = generateOrders(random, 300);
var render = ejs.compile(
  "<h1>Order <%= id %> for <%= customer.name %><% if (customer.vip) { %> (VIP)<% } %></h1>\n" +
  "<table><% lines.forEach(function (line) { %><tr><td><%= line.sku %></td><td><%= line.title %></td>" +
  "<td><%= line.qty %></td><td><%= line.price.toFixed(2) %></td></tr><% }) %></table>\n" +
  "<% if (note) { %><p><%= note %></p><% } else { %><p>no note</p><% } %>\n");
var ROUNDS = 12;
var h = 0x811c9dc5;
var length = 0;
for (var round = 0; round < ROUNDS; round++) {
  for (var o = 0; o < orders.length; o++) {
    var html = render(orders[o]);
    if (round === 0) { h = hash(html, h); length += html.length; }
  }
}
var compiled = 0;
for (var c = 0; c < 40; c++) compiled += ejs.compile("<% for (var i = 0; i < n; i++) { %><li><%= i * " + c + " %></li><% } %>")({ n: 3 }).length;
emit("ejs " + length + " " + compiled + " " + hex(h));
