// A switch whose case tests are all int32 literals finds its case by one lookup. It
// must still behave as the tests in order would: strict equality (no conversion),
// -0 equal to 0, the first of two equal cases, fall-through, and default anywhere.
function name(x) {
  switch (x) {
    case 1: return "one";
    case -2: return "minus two";
    case 3:
    case 4: return "three or four";
    case 1: return "second one";
    default: return "other";
    case 0: return "zero";
    case 2147483647: return "max";
    case -2147483648: return "min";
  }
}
print([1, -2, 3, 4, 0, -0, 5].map(name).join()); // expect: one,minus two,three or four,three or four,zero,zero,other
print(["1", 1.5, NaN, null, undefined, true, 1n].map(name).join()); // expect: other,other,other,other,other,other,other
print([2 ** 31 - 1, -(2 ** 31), 2 ** 31, 0.5 + 0.5, 4e0].map(name).join()); // expect: max,min,other,one,three or four
print([new Number(1), { valueOf() { return 1; } }].map(name).join()); // expect: other,other

function through(x) {
  let r = "";
  switch (x) {
    case 7: r += "a";
    case 8: r += "b"; break;
    case 9: r += "c";
  }
  return r;
}
print([7, 8, 9, 10].map(through).join("|")); // expect: ab|b|c|

// The discriminant is evaluated once, and no case test has effects to run.
let reads = 0;
const box = { get v() { reads++; return 8; } };
print(through(box.v), reads); // expect: b 1

// A case that is not a literal keeps the tests in order, side effects included.
let seen = [];
function mixed(x) {
  switch (x) {
    case 1: return "one";
    case (seen.push("tested"), 2): return "two";
    default: return "other";
  }
}
print(mixed(1), mixed(2), mixed(3), seen.join()); // expect: one two other tested,tested

// Nested switches each keep their own table; labels and continue still leave them.
let out = [];
outer: for (let i = 0; i < 4; i++) {
  switch (i) {
    case 0: continue;
    case 1:
      switch (i * 10) {
        case 10: out.push("ten"); break;
        case 20: out.push("twenty"); break;
      }
      break;
    case 2: out.push("two"); continue outer;
    case 3: break outer;
  }
  out.push("after " + i);
}
print(out.join()); // expect: ten,after 1,two
