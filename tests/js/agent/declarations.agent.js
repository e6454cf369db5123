// Top-level declarations are local to the execution: functions are hoisted, nothing
// becomes a property of the global object, and `this` is undefined (strict code).
var count = 1;
let label = "x";
const result = helper(count);
function helper(n) {
  return n + 1;
}
class Point {}
return [
  result,
  typeof globalThis.count,
  typeof globalThis.helper,
  "label" in globalThis,
  typeof Point,
  this === undefined,
];
// expect: {"type":"complete","value":[2,"undefined","undefined",false,"function",true]}
