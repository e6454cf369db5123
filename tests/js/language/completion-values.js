// The completion value of a script or eval: loops, switch, try and `with` complete with
// undefined when their body leaves no value, instead of showing an earlier statement's.
print(eval("1; while (false);")); // expect: undefined
print(eval("1; do { break; } while (false)")); // expect: undefined
print(eval("2; do { 3; break; } while (false)")); // expect: 3
print(eval("1; for (var a in null) { 2; }")); // expect: undefined
print(eval("1; for (var b of []) { 2; }")); // expect: undefined
print(eval("1; for (var c of [0]) { 2; }")); // expect: 2
print(eval("1; for (;false;) {}")); // expect: undefined
print(eval("1; switch (0) {}")); // expect: undefined
print(eval("1; switch (0) { case 0: 2; default: }")); // expect: 2
print(eval("1; with ({}) {}")); // expect: undefined
print(eval("1; try {} catch (e) {}")); // expect: undefined
print(eval("1; try { 2; throw 0; } catch (e) {}")); // expect: undefined
// A finally block that completes normally keeps the try block's value ...
print(eval("try { 2; } finally { 3; }")); // expect: 2
// ... one left by break or continue carries its own.
print(eval("99; do { try { 39 } finally { 42; continue; } } while (false)")); // expect: 42
print(eval("99; do { -99; try { [].x.x } catch (e) { -1; } finally { break; } } while (false)")); // expect: undefined
print(eval("1; outer: do { for (var d of [0]) { continue outer; } } while (false)")); // expect: undefined
