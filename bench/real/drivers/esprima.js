// esprima: parse and tokenize a large library (Handlebars' browser bundle) with ranges.
var ROUNDS = 2;
var summary = "";
var tokens = 0;
for (var round = 0; round < ROUNDS; round++) {
  var tree = esprima.parseScript(SOURCE, { range: true, loc: true });
  if (round === 0) summary = nodeCounts(tree);
  tokens = esprima.tokenize(SOURCE).length;
}
emit("esprima " + tree.body.length + " " + tokens + " " + hex(hash(summary)));
