// diff (jsdiff): line, word and character diffs between a generated text and an
// edited copy, and a unified patch applied back.
var random = new Random(23);
var pair = editedText(random, 3000, 300);
var lines = pair.lines, edited = pair.edited;
var a = lines.join("\n") + "\n", b = edited.join("\n") + "\n";
var lineChanges = Diff.diffLines(a, b);
var wordChanges = Diff.diffWords(a.slice(0, 20000), b.slice(0, 20000));
var charChanges = Diff.diffChars(a.slice(0, 4000), b.slice(0, 4000));
var patch = Diff.createTwoFilesPatch("a.txt", "b.txt", a, b, "", "");
var applied = Diff.applyPatch(a, patch);
emit("diff " + lineChanges.length + " " + wordChanges.length + " " + charChanges.length + " " + (applied === b) + " " + hex(hash(patch)));
