// lodash: collection pipelines (groupBy, orderBy, uniqBy, chunk), deep clone, merge
// and equality, string helpers and a compiled template over generated records.
var random = new Random(29);
var records = _.times(20000, function (i) {
  return { id: i, name: words(random, 2), city: random.pick(WORDS), tags: [random.pick(WORDS), random.pick(WORDS)], score: random.int(1000), nested: { a: { b: [i, i * 2] } } };
});
var grouped = _.mapValues(_.groupBy(records, "city"), function (group) { return _.sumBy(group, "score"); });
var top = _.take(_.orderBy(records, ["score", "id"], ["desc", "asc"]), 100);
var unique = _.uniqBy(records, function (r) { return r.name; }).length;
var chunks = _.chunk(records, 7).length;
var clone = _.cloneDeep(records.slice(0, 5000));
var equal = _.isEqual(clone, records.slice(0, 5000));
var merged = _.merge({}, { a: { list: [1, 2] } }, clone[0], { nested: { a: { c: 1 } } });
var names = _.map(records.slice(0, 8000), function (r) { return _.camelCase(r.name) + _.kebabCase(r.name) + _.startCase(r.city); });
var render = _.template("<% _.forEach(items, function (r) { %><li><%- r.name %> (<%= r.score %>)</li><% }); %>");
var html = render({ items: top });
emit("lodash " + _.size(grouped) + " " + unique + " " + chunks + " " + equal + " " + hex(hash(JSON.stringify(grouped) + JSON.stringify(merged) + names.join("") + html)));
