// Regression: Object.fromEntries held each entry (and its key) unrooted while the
// entry's getters ran; the gc-stress build panicked reading the freed entry in
// test262's Object/fromEntries/evaluation-order.js.
function* entries() {
  for (var i = 0; i < 3; i++) {
    yield {
      get 0() { var junk = []; for (var j = 0; j < 50; j++) junk.push({ j }); return { toString() { return "k" + i; } }; },
      get 1() { var junk = []; for (var j = 0; j < 50; j++) junk.push({ j }); return i; },
    };
  }
}
print(JSON.stringify(Object.fromEntries(entries())));
// expect: {"k0":0,"k1":1,"k2":2}
