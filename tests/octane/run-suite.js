// Runs the Octane suites loaded before this file (base.js, then benchmarks) and
// prints one line per benchmark. A benchmark's own validation throws on a wrong result.
// Deterministic mode runs each benchmark a fixed number of iterations instead of for a
// fixed time, so the run is repeatable and takes the same work on every engine. The
// suites' own counts (thousands of iterations) are for timing; as a correctness check
// a few iterations suffice, since each iteration validates its own result.
BenchmarkSuite.config.doWarmup = false;
BenchmarkSuite.config.doDeterministic = true;
var ITERATIONS = 20;
for (var s = 0; s < BenchmarkSuite.suites.length; s++) {
  var benchmarks = BenchmarkSuite.suites[s].benchmarks;
  for (var b = 0; b < benchmarks.length; b++) {
    benchmarks[b].deterministicIterations = Math.min(benchmarks[b].deterministicIterations, ITERATIONS);
  }
}
var failed = false;
BenchmarkSuite.RunSuites({
  NotifyResult: function (name, result) { print(name + ": " + result); },
  NotifyError: function (name, error) { failed = true; print(name + " FAILED: " + error); },
  NotifyScore: function (score) { print("Score: " + score); },
});
if (failed) throw new Error("an Octane benchmark failed its validation");
