// js-yaml: dump generated nested data to YAML and load it back.
var random = new Random(37);
function value(depth) {
  var k = random.int(depth > 3 ? 4 : 7);
  if (k === 0) return random.int(100000);
  if (k === 1) return words(random, 1 + random.int(6));
  if (k === 2) return random.int(2) === 0;
  if (k === 3) return random.int(1000) / 8;
  if (k === 4) {
    var list = [];
    for (var i = 0; i < 1 + random.int(5); i++) list.push(value(depth + 1));
    return list;
  }
  var object = {};
  for (var j = 0; j < 1 + random.int(6); j++) object[random.pick(WORDS) + j] = value(depth + 1);
  return object;
}
var data = [];
for (var d = 0; d < 1500; d++) data.push(value(0));
var text = jsyaml.dump(data);
var back = jsyaml.load(text);
var again = jsyaml.dump(back);
emit("js-yaml " + text.length + " " + back.length + " " + (again === text) + " " + hex(hash(text)));
