// terser: compress and mangle a library's source (papaparse); minify is asynchronous.
var ROUNDS = 2;
var results = [];
function minifyOnce(round) {
  return Terser.minify(SOURCE, { compress: { passes: 1 }, mangle: true }).then(function (result) {
    results.push(result.code);
    if (round + 1 < ROUNDS) return minifyOnce(round + 1);
  });
}
minifyOnce(0).then(function () {
  var last = results[results.length - 1];
  emit("terser " + results.length + " " + last.length + " " + hex(hash(last)));
}, function (error) {
  emit("terser failed: " + error);
});
