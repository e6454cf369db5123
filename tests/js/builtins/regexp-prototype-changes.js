// The Symbol methods read `flags` and `exec` without running anything when
// %RegExp.prototype% is as built, and remember where they found it so. Each change
// below must be seen by the next call, even after the same calls took the fast path.
function encode(s) {
  return s.replace(/&/g, "&amp;").replace(/</, "&lt;");
}
for (var i = 0; i < 100; i++) encode("a<b & c<d & e");
print(encode("a<b & c<d & e")); // expect: a&lt;b &amp; c<d &amp; e

var flagsDescriptor = Object.getOwnPropertyDescriptor(RegExp.prototype, "flags");
var globalDescriptor = Object.getOwnPropertyDescriptor(RegExp.prototype, "global");

// a `flags` getter of the program's: no replace is global
Object.defineProperty(RegExp.prototype, "flags", { get() { return ""; }, configurable: true });
print(encode("a<b & c<d & e")); // expect: a&lt;b &amp; c<d & e
Object.defineProperty(RegExp.prototype, "flags", flagsDescriptor);
print(encode("a<b & c<d & e")); // expect: a&lt;b &amp; c<d &amp; e

// a flag getter the built-in `flags` getter calls
var reads = 0;
Object.defineProperty(RegExp.prototype, "global", {
  get() { reads++; return false; },
  configurable: true,
});
print(encode("a<b & c<d & e"), reads > 0); // expect: a&lt;b &amp; c<d & e true
Object.defineProperty(RegExp.prototype, "global", globalDescriptor);
print(encode("a<b & c<d & e")); // expect: a&lt;b &amp; c<d &amp; e

// `exec` replaced by an assignment, which keeps the prototype's layout
var builtinExec = RegExp.prototype.exec;
RegExp.prototype.exec = function () { return null; };
print(encode("a<b & c<d")); // expect: a<b & c<d
RegExp.prototype.exec = builtinExec;
print(encode("a<b & c<d")); // expect: a&lt;b &amp; c<d

// Each evaluation of a literal is a new object that shares the literal's source.
function literal() { return /a+b/gi; }
var first = literal(), second = literal();
first.lastIndex = 2;
print(first === second, second.lastIndex, second.source, second.flags); // expect: false 0 a+b gi
print(literal().exec("xAAB")[0]); // expect: AAB
