// diff-match-patch: character diff with semantic cleanup between a generated text and
// an edited copy, patches made and applied, and fuzzy matching.
var dmp = new diff_match_patch();
dmp.Diff_Timeout = 0;
var random = new Random(23);
var pair = editedText(random, 600, 60);
var lines = pair.lines, edited = pair.edited;
var a = lines.join("\n"), b = edited.join("\n");
var diffs = dmp.diff_main(a, b);
dmp.diff_cleanupSemantic(diffs);
var patches = dmp.patch_make(a, diffs);
var text = dmp.patch_toText(patches);
var applied = dmp.patch_apply(dmp.patch_fromText(text), a);
var found = 0;
for (var m = 0; m < 200; m++) {
  var start = random.int(a.length - 40);
  if (dmp.match_main(b, a.substr(start, 24), start) >= 0) found++;
}
emit("diff-match-patch " + diffs.length + " " + patches.length + " " + (applied[0] === b) + " " + found + " " + hex(hash(text)));
