// immutable: persistent maps and lists: many updates, merges, sorting, grouping and
// conversion back to plain objects.
var random = new Random(17);
var people = Immutable.List();
for (var i = 0; i < 6000; i++) {
  people = people.push(Immutable.Map({ id: i, name: words(random, 2), city: random.pick(WORDS), score: random.int(1000) }));
}
var index = Immutable.Map().withMutations(function (m) {
  people.forEach(function (p) { m.set("p" + p.get("id"), p); });
});
for (var j = 0; j < 10000; j++) {
  var key = "p" + random.int(6000);
  index = index.updateIn([key, "score"], function (s) { return s + 1; });
}
var byCity = index.valueSeq().groupBy(function (p) { return p.get("city"); })
  .map(function (group) { return group.reduce(function (sum, p) { return sum + p.get("score"); }, 0); })
  .sortBy(function (v, k) { return k; });
var top = index.valueSeq().sortBy(function (p) { return -p.get("score") * 100000 + p.get("id"); }).take(50)
  .map(function (p) { return p.get("name"); }).toList();
var set = Immutable.Set(people.map(function (p) { return p.get("city"); }));
var merged = index.merge(Immutable.Map({ extra: Immutable.Map({ id: -1 }) }));
emit("immutable " + merged.size + " " + set.size + " " + hex(hash(JSON.stringify(byCity.toJS()) + top.join(","))));
