// Generators suspend by keeping their frame; resumption values flow in.
function* counter() {
  const x = yield 1;
  yield x * 2;
  return "done";
}
const it = counter();
print(it.next().value); // expect: 1
print(it.next(21).value); // expect: 42
const last = it.next();
print(last.value, last.done); // expect: done true
print([...counter()].join()); // expect: 1,NaN

function* inner() { yield "a"; yield "b"; }
function* outer() { yield* inner(); yield "c"; }
print([...outer()].join("")); // expect: abc

function* guarded() {
  try { yield 1; yield 2; } finally { print("cleanup"); }
}
for (const v of guarded()) { print(v); break; }
// expect: 1
// expect: cleanup
