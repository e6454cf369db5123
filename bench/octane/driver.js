// Kiln benchmark driver for the Octane programs in ../shared/bench/octane/ (read, never
// copied). The runner concatenates base.js, one program and this file into
// build/bench/octane/<program>.js, so every engine runs the same single source.
//
// Unlike Octane's own timed loop (tests/octane/run-suite.js), this runs each benchmark
// a fixed number of iterations, chosen so a program takes about a second on
// `node --jitless`, and prints no timing: the output is the checksum. Each benchmark
// validates its own result (in run() or TearDown()) and throws when it is wrong.
var out = typeof print === 'function' ? print : console.log;

var ITERATIONS = {
  Richards: 50,
  DeltaBlue: 50,
  Encrypt: 20,
  Decrypt: 2,
  RayTrace: 4,
  NavierStokes: 3,
  Splay: 8,
};

for (var s = 0; s < BenchmarkSuite.suites.length; s++) {
  var suite = BenchmarkSuite.suites[s];
  for (var b = 0; b < suite.benchmarks.length; b++) {
    var benchmark = suite.benchmarks[b];
    var n = ITERATIONS[benchmark.name];
    if (n === undefined) throw new Error('no iteration count for ' + benchmark.name);
    BenchmarkSuite.ResetRNG();
    benchmark.Setup();
    for (var i = 0; i < n; i++) benchmark.run();
    benchmark.TearDown();
    out(benchmark.name + ': ' + n + ' iterations ok');
  }
}
