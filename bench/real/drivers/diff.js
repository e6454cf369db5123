// diff (jsdiff): line, word and character diffs between a generated text and an
// edited copy, and a unified patch applied back.
var random = new Random(23);
var lines = [];
for (var i = 0; i < 3000; i++) lines.push(words(random, 4 + random.int(10)));
var edited = lines.slice();
for (var e = 0; e < 300; e++) {
  var at = random.int(edited.length);
  var kind = random.int(3);
  if (kind === 0) edited.splice(at, 1);
  else if (kind === 1) edited.splice(at, 0, words(random, 6));
  else edited[at] = edited[at].replace(/[aeiou]/, "#");
}
var a = lines.join("\n") + "\n", b = edited.join("\n") + "\n";
var lineChanges = Diff.diffLines(a, b);
var wordChanges = Diff.diffWords(a.slice(0, 20000), b.slice(0, 20000));
var charChanges = Diff.diffChars(a.slice(0, 4000), b.slice(0, 4000));
var patch = Diff.createTwoFilesPatch("a.txt", "b.txt", a, b, "", "");
var applied = Diff.applyPatch(a, patch);
emit("diff " + lineChanges.length + " " + wordChanges.length + " " + charChanges.length + " " + (applied === b) + " " + hex(hash(patch)));
