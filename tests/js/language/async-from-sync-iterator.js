// yield* over a sync iterator without `throw`: closing it rejects with what `return` threw.
var closeErr = new Error("from return");
var noThrow = { [Symbol.iterator]() { return { next() { return { value: 1, done: false }; }, get return() { throw closeErr; } }; } };
var wrapped = (async function* () { yield* noThrow; })();
wrapped.next().then(() => wrapped.throw()).then(null, (e) => print("rejected with", e === closeErr)); // expect: rejected with true
