// markdown-it: render generated Markdown documents (README-sized, about 9 KB each, 180 KB in all) to HTML, with typographic replacements.
var ROUNDS = 2;
var random = new Random(7);
var docs = [];
for (var i = 0; i < 20; i++) docs.push(markdownDocument(random, 25));
var md = markdownit({ html: false, typographer: true });
var h = 0x811c9dc5, length = 0, size = 0;
for (var round = 0; round < ROUNDS; round++) {
  for (var d = 0; d < docs.length; d++) {
    var html = md.render(docs[d]);
    if (round === 0) { h = hash(html, h); length += html.length; size += docs[d].length; }
  }
}
emit("markdown-it " + size + " " + length + " " + hex(h));
