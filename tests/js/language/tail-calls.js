"use strict";
// Strict calls in tail position replace the frame: deep recursion through `,`, `?:`,
// `&&`, `||` and `??` does not overflow the stack.
function viaComma(n) { return n === 0 ? "comma" : (0, viaComma(n - 1)); }
function viaLogical(n) { return n === 0 ? "logical" : (true && (false || (null ?? viaLogical(n - 1)))); }
print(viaComma(200000), viaLogical(200000)); // expect: comma logical
// A short-circuited operand is returned as it is.
function shortCircuit(x) { return x || unreachable(); }
print(shortCircuit(7)); // expect: 7
// A tagged template in tail position is a tail call too.
function down(strings, n) { return n === 0 ? "tag" : down`${n - 1}`; }
print(down`${200000}`); // expect: tag
