// marked: render a generated Markdown document to HTML.
var ROUNDS = 6;
var doc = markdownDocument(new Random(7), 2500);
var html = "";
for (var round = 0; round < ROUNDS; round++) html = marked.parse(doc);
emit("marked " + doc.length + " " + html.length + " " + hex(hash(html)));
