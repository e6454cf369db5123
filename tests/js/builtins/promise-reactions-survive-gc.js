// Regression: a reaction job's record was not rooted while its handler ran, so a
// collection inside the handler freed the capability it resolves next.
var round = 0;
function again() {
  if (++round > 4) return;
  var p = Promise.resolve(0);
  for (var i = 0; i < 10000; i++) p = p.then(function (v) { return v + 1; });
  p.then(function (v) { print(round, v); again(); });
}
again();
// expect: 1 10000
// expect: 2 10000
// expect: 3 10000
// expect: 4 10000
