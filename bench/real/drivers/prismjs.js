// prismjs: highlight a JavaScript library (diff's UMD bundle) as JavaScript.
var ROUNDS = 2;
var html = "";
for (var round = 0; round < ROUNDS; round++) html = Prism.highlight(SOURCE, Prism.languages.javascript, "javascript");
emit("prismjs " + html.length + " " + hex(hash(html)));
