// ArraySpeciesCreate: another realm's %Array% as the constructor makes an array of
// the running realm instead.
const other = createRealm();
const otherArray = other.evalScript("[1, 2, 3]");
for (const method of ["map", "filter", "slice", "splice", "concat", "flat", "flatMap"]) {
  const result =
    method === "map" || method === "filter" || method === "flatMap"
      ? Array.prototype[method].call(otherArray, x => x)
      : Array.prototype[method].call(otherArray);
  print(method, Object.getPrototypeOf(result) === Array.prototype);
}
// expect: map true
// expect: filter true
// expect: slice true
// expect: splice true
// expect: concat true
// expect: flat true
// expect: flatMap true

// The other realm's methods on this realm's arrays make arrays of the other realm.
print(Object.getPrototypeOf(other.Array.prototype.map.call([1], x => x)) === other.Array.prototype); // expect: true

// Another realm's constructor that is not %Array% is used as the species.
const OtherList = other.evalScript("(class OtherList { constructor(n) { this.n = n; } })");
const a = [1];
a.constructor = { [Symbol.species]: OtherList };
print(a.map(x => x) instanceof OtherList); // expect: true
// With the other realm's %Array% as species, through a custom constructor property.
const b = [1];
b.constructor = other.Array;
print(Object.getPrototypeOf(b.map(x => x)) === Array.prototype); // expect: true
