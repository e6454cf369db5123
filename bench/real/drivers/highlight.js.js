// highlight.js: highlight a JavaScript library (diff's UMD bundle) as JavaScript, and
// guess the language of a slice of it.
// (esbuild bundles the package's ES module build, whose default export is the highlighter)
var highlighter = hljs["default"];
var ROUNDS = 1;
var html = "";
for (var round = 0; round < ROUNDS; round++) html = highlighter.highlight(SOURCE, { language: "javascript" }).value;
var guess = highlighter.highlightAuto(SOURCE.slice(0, 4000));
emit("highlight.js " + html.length + " " + guess.language + " " + hex(hash(html)));
