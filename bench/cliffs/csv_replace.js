// A CSV pass over a 5 MB string: normalise line endings and quotes with global regex
// replaces, split rows, then split fields with a character-class regex.
var out = typeof print === 'function' ? print : console.log;
var rows = [];
for (var i = 0; i < 130000; i++) {
  rows.push(i + ',"name ' + (i % 97) + '",' + (i * 7919 % 10007) + ',"city, ' + (i % 13) + '",note ' + (i % 5) + '\r\n');
}
var text = rows.join('');
var clean = text.replace(/\r\n/g, '\n').replace(/"([^"]*)"/g, function (m, inner) { return inner.replace(/,/g, ';'); });
var lines = clean.split('\n');
var sum = 0, fields = 0;
var field = /[^,\n]+/g;
for (var j = 0; j < lines.length; j++) {
  var m;
  field.lastIndex = 0;
  while ((m = field.exec(lines[j])) !== null) { fields++; sum = (sum + m[0].length) | 0; }
}
out(text.length + ' ' + lines.length + ' ' + fields + ' ' + sum);
