// Promise.all and allSettled define their result elements: setters on Array.prototype
// never run.
Object.defineProperty(Array.prototype, 0, { set() { throw new Error("setter ran"); }, configurable: true });
Promise.all([42]).then(v => print("all", v[0])); // expect: all 42
Promise.allSettled([7]).then(v => print("allSettled", v[0].value)); // expect: allSettled 7
