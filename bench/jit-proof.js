// A hot loop for `kiln-bench jit-proof`: with JavaScriptCore's JITs on, Bun compiles it
// to machine code and runs it tens of times faster than its interpreter (LLInt) can.
var out = typeof print === 'function' ? print : console.log;
function hot(n) {
  var s = 0;
  for (var i = 0; i < n; i++) s = (s + (i * i) % 7) | 0;
  return s;
}
out(hot(10000000));
