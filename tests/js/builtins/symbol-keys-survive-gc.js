// A symbol reachable only as the key of an object's property (in its shape) survives
// collections: before, it was freed and its slot reused by a new symbol, so the
// property's key changed identity.
const o = {};
o[Symbol("kept")] = 1;
const lengths = [];
for (let i = 0; i < 300000; i++) lengths.push(Symbol("other" + i).description.length);
const [key] = Object.getOwnPropertySymbols(o);
print(key.description, o[key], lengths.length);
// expect: kept 1 300000
