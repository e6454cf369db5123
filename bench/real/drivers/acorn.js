// acorn: parse a large ES5 library (lodash) into an ESTree with locations, once.
var ROUNDS = 1;
var summary = "";
for (var round = 0; round < ROUNDS; round++) {
  var tree = acorn.parse(SOURCE, { ecmaVersion: "latest", sourceType: "script", locations: true });
  if (round === 0) summary = nodeCounts(tree);
}
emit("acorn " + tree.body.length + " " + tree.end + " " + hex(hash(summary)));
