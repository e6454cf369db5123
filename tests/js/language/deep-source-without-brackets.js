// Source nested a million levels deep without brackets is a SyntaxError from eval and
// Function, never an overflow of the compiler's stack (which aborted the process).
function refused(source) {
  try {
    eval(source);
    return "compiled";
  } catch (e) {
    return e instanceof SyntaxError ? e.message : "other: " + e;
  }
}
const n = 1000000;
print(refused("!".repeat(n) + "x"));
// expect: nesting too deep (<eval>:1:10001)
print(refused("a=".repeat(n) + "1"));
// expect: nesting too deep (<eval>:1:20002)
print(refused("x=>".repeat(n) + "1"));
// expect: nesting too deep (<eval>:1:15002)
print(refused("new ".repeat(n) + "F"));
// expect: nesting too deep (<eval>:1:40001)
print(refused("if(a)".repeat(n) + "x;"));
// expect: nesting too deep (<eval>:1:50001)
try {
  Function("return " + "typeof ".repeat(n) + "x");
} catch (e) {
  print(e.name, e.message);
}
// expect: SyntaxError nesting too deep
// A long flat array is not nesting.
print(eval("[" + "1,".repeat(300000) + "1]").length);
// expect: 300001
