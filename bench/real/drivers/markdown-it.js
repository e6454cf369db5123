// markdown-it: render a generated Markdown document to HTML (with tables and linkify off).
var ROUNDS = 6;
var doc = markdownDocument(new Random(7), 2500);
var md = markdownit({ html: false, typographer: true });
var html = "";
for (var round = 0; round < ROUNDS; round++) html = md.render(doc);
emit("markdown-it " + doc.length + " " + html.length + " " + hex(hash(html)));
