// A highlighter-style tokenizer: one sticky regex per token kind, tried in turn at
// lastIndex over a 1 MB source text.
var out = typeof print === 'function' ? print : console.log;
var unit = 'function f' + 'oo(a, b) { var x = a + 42; // note\n  return "str" + x * 3.5; }\n';
var src = '';
for (var i = 0; i < 13000; i++) src += unit.replace('oo', 'n' + (i % 100));
var kinds = [
  ['ws', /\s+/y], ['comment', /\/\/[^\n]*/y], ['string', /"(?:[^"\\]|\\.)*"/y],
  ['number', /\d+(?:\.\d+)?/y], ['keyword', /(?:function|var|return)\b/y],
  ['ident', /[A-Za-z_$][\w$]*/y], ['punct', /[{}()\[\];,.+\-*\/=]/y]
];
var counts = {};
var pos = 0, tokens = 0;
while (pos < src.length) {
  var matched = false;
  for (var k = 0; k < kinds.length; k++) {
    var re = kinds[k][1];
    re.lastIndex = pos;
    var m = re.exec(src);
    if (m) {
      counts[kinds[k][0]] = (counts[kinds[k][0]] || 0) + 1;
      pos = re.lastIndex; tokens++; matched = true; break;
    }
  }
  if (!matched) pos++;
}
out(src.length + ' ' + tokens + ' ' + counts.ident + ' ' + counts.number + ' ' + counts.string);
