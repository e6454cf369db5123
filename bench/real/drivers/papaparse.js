// papaparse: parse a generated CSV file (quoted fields, embedded commas and quotes,
// numbers) with headers and dynamic typing, then write it back.
var random = new Random(11);
var rows = ["id,name,city,amount,note,active"];
for (var i = 0; i < 10000; i++) {
  var note = words(random, 1 + random.int(8));
  if (random.int(5) === 0) note = "\"" + note + ", \"\"quoted\"\"\"";
  rows.push(i + "," + random.pick(WORDS) + " " + random.pick(WORDS) + "," + random.pick(WORDS) + "," +
    (random.int(1000000) / 100) + "," + note + "," + (random.int(2) ? "true" : "false"));
}
var csv = rows.join("\r\n");
var parsed = Papa.parse(csv, { header: true, dynamicTyping: true, skipEmptyLines: true });
var total = 0;
for (var j = 0; j < parsed.data.length; j++) total += parsed.data[j].amount;
var back = Papa.unparse(parsed.data);
var again = Papa.parse(back).data.length;
emit("papaparse " + parsed.data.length + " " + parsed.errors.length + " " + total.toFixed(2) + " " + again + " " + hex(hash(back)));
