// `using` declarations: resources are disposed in reverse order on every way out of
// their scope, and disposal errors pile up as SuppressedError chains.
const log = [];
function resource(name, fail) {
  return {
    [Symbol.dispose]() {
      log.push(name);
      if (fail) throw new Error(name + " failed");
    },
  };
}
function flush() {
  const s = log.join(" ");
  log.length = 0;
  return s;
}

{
  using a = resource("a"), b = resource("b");
  using nothing = null, alsoNothing = undefined;
  using c = resource("c");
  log.push("body");
}
print(flush()); // expect: body c b a

// break, continue and return leave through the disposal.
for (let i = 0; i < 3; i++) {
  using r = resource("r" + i);
  if (i === 0) continue;
  if (i === 1) break;
}
print(flush()); // expect: r0 r1
function early(flag) {
  using f = resource("f");
  if (flag) return "early";
  log.push("late");
  return "late";
}
print(early(true), flush()); // expect: early f
print(early(false), flush()); // expect: late late f
outer: {
  using l = resource("labelled");
  break outer;
}
print(flush()); // expect: labelled

// A throw disposes, then propagates; one disposal error replaces a normal completion.
try {
  using t = resource("t");
  throw new Error("body failed");
} catch (e) {
  print(e.message, flush()); // expect: body failed t
}
try {
  using u = resource("u", true);
} catch (e) {
  print(e.message, e instanceof SuppressedError); // expect: u failed false
}
flush();

// Errors on top of errors: each new one suppresses the one before.
try {
  using first = resource("first", true);
  using second = resource("second", true);
  throw new Error("body");
} catch (e) {
  print(e instanceof SuppressedError, e.error.message); // expect: true first failed
  print(e.suppressed.error.message, e.suppressed.suppressed.message); // expect: second failed body
}
print(flush()); // expect: second first

// The value must be an object with a callable [Symbol.dispose], or null/undefined.
for (const bad of [42, {}, { [Symbol.dispose]: 1 }]) {
  try {
    using x = bad;
    print("not reached");
  } catch (e) {
    print(e.constructor.name); // expect: TypeError
    // expect: TypeError
    // expect: TypeError
  }
}
// A resource whose initialiser throws is not added; earlier ones are disposed.
try {
  using ok = resource("ok");
  using broken = (() => { throw new Error("init"); })();
} catch (e) {
  print(e.message, flush()); // expect: init ok
}
// The binding is constant.
try {
  using k = null;
  k = 1;
} catch (e) {
  print(e.constructor.name); // expect: TypeError
}
// The method is read once, when the resource is added, and called on the value.
let reads = 0;
const counted = {
  get [Symbol.dispose]() {
    reads++;
    return function () { log.push(this === counted); };
  },
};
{
  using c1 = counted;
  print(reads); // expect: 1
}
print(reads, flush()); // expect: 1 true

// for-of: each iteration's value is disposed before the next step; break closes the
// iterator after disposing.
function* values() {
  try {
    yield resource("v1");
    yield resource("v2");
    yield resource("v3");
  } finally {
    log.push("closed");
  }
}
for (using v of values()) {
  log.push("iteration");
  if (log.length > 3) break;
}
print(flush()); // expect: iteration v1 iteration v2 iteration v3 closed
// for (using ...;;): disposed once, when the loop ends.
let n = 0;
for (using once = resource("once"); n < 3; n++) log.push(n);
print(flush()); // expect: 0 1 2 once

// Generators: return() and a throw() at a yield dispose too.
function* gen() {
  using g = resource("g");
  try {
    yield 1;
    yield 2;
  } finally {
    log.push("finally");
  }
}
let it = gen();
it.next();
print(JSON.stringify(it.return(7)), flush()); // expect: {"value":7,"done":true} finally g
it = gen();
it.next();
try {
  it.throw(new Error("thrown in"));
} catch (e) {
  print(e.message, flush()); // expect: thrown in finally g
}

// Function bodies and class static blocks are scopes too; so are catch blocks.
class WithStatic {
  static {
    using s = resource("static");
    log.push("in static");
  }
}
print(flush()); // expect: in static static
try {
  throw 0;
} catch {
  using inCatch = resource("catch");
}
print(flush()); // expect: catch

// Iterator.prototype[Symbol.dispose] calls return.
const iterator = values();
iterator.next();
{
  using closing = iterator;
}
print(flush(), iterator.next().done); // expect: closed true
