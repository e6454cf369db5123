// A cycle: b runs first (a imports it), and may call a's hoisted functions.
import { fromB, lateA } from './_cycle_a.mjs';
// expect: evaluating b, a() = a
// expect: ReferenceError
// expect: evaluating a, b = b
print(fromB, lateA); // expect: a late
