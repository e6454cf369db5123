// DisposableStack, AsyncDisposableStack and SuppressedError.
const log = [];
const stack = new DisposableStack();
print(stack.disposed, Object.prototype.toString.call(stack)); // expect: false [object DisposableStack]
const resource = { [Symbol.dispose]() { log.push("use"); } };
print(stack.use(resource) === resource, stack.use(null)); // expect: true null
print(stack.adopt(42, (v) => log.push("adopt " + v))); // expect: 42
print(stack.defer(() => log.push("defer"))); // expect: undefined
print(DisposableStack.prototype[Symbol.dispose] === DisposableStack.prototype.dispose); // expect: true
stack.dispose();
print(log.join(", "), stack.disposed); // expect: defer, adopt 42, use true
print(stack.dispose()); // expect: undefined
try {
  stack.use(resource);
} catch (e) {
  print(e.constructor.name); // expect: ReferenceError
}

// move() hands the resources to a new stack and disposes the old one.
log.length = 0;
const first = new DisposableStack();
first.defer(() => log.push("moved"));
const second = first.move();
print(first.disposed, second.disposed, log.length); // expect: true false 0
second.dispose();
print(log.join()); // expect: moved

// Errors fold into SuppressedError: the later failure suppresses the earlier.
const failing = new DisposableStack();
failing.defer(() => { throw new Error("one"); });
failing.defer(() => { throw new Error("two"); });
try {
  failing.dispose();
} catch (e) {
  print(e.name, e.error.message, e.suppressed.message); // expect: SuppressedError one two
}

// Used with `using`: the stack disposes everything it holds with the block.
log.length = 0;
{
  using s = new DisposableStack();
  s.defer(() => log.push("deferred by block"));
}
print(log.join()); // expect: deferred by block

// SuppressedError itself.
const se = new SuppressedError("err", "sup", "message");
print(se.error, se.suppressed, se.message, se instanceof Error); // expect: err sup message true
print(Object.getPrototypeOf(SuppressedError) === Error, SuppressedError.length); // expect: true 3
print(Object.keys(se).length, Object.hasOwn(SuppressedError("a", "b"), "message")); // expect: 0 false
print(String(new SuppressedError(1, 2, "why"))); // expect: SuppressedError: why

// AsyncDisposableStack: disposeAsync awaits each disposal in reverse order.
const asyncStack = new AsyncDisposableStack();
asyncStack.use({ async [Symbol.asyncDispose]() { await null; print("async resource"); } });
asyncStack.use({ [Symbol.dispose]() { print("sync resource"); } });
asyncStack.defer(async () => { print("deferred"); throw new Error("late"); });
print(typeof AsyncDisposableStack.prototype[Symbol.asyncDispose]); // expect: function
asyncStack.disposeAsync().then(
  () => print("not reached"),
  (e) => print("rejected:", e.message, asyncStack.disposed),
);
print("disposal started"); // expect: deferred
// expect: disposal started
// expect: sync resource
// expect: TypeError
// expect: async resource
// expect: rejected: late true
// A receiver that is not an AsyncDisposableStack rejects rather than throws.
AsyncDisposableStack.prototype.disposeAsync.call({}).catch((e) => print(e.constructor.name));
