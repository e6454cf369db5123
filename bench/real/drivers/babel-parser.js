// @babel/parser: parse a modern library (Immutable's ES2015+ module build) as a module.
var ROUNDS = 3;
var summary = "";
for (var round = 0; round < ROUNDS; round++) {
  var file = babelParser.parse(SOURCE, { sourceType: "module", ranges: true });
  if (round === 0) summary = nodeCounts(file);
}
emit("babel-parser " + file.program.body.length + " " + file.comments.length + " " + hex(hash(summary)));
