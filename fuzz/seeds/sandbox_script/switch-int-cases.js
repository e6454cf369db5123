function pick(x) {
  switch (x) {
    case -2147483648: return 'min';
    case -1: return 'minus one';
    case 0: return 'zero';
    default: return 'other';
    case 1: case 2: return 'small';
    case 2: return 'duplicate';
    case 2147483647: return 'max';
    case 1000: return 'sparse';
  }
}
var out = [];
for (var i = -3; i < 4; i++) out.push(pick(i));
out.push(pick(-0), pick(4294967297), pick('1'), pick(1.5), pick(NaN), pick(new Number(1)));
function nested(a, b) {
  switch (a) {
    case 0:
      switch (b) { case 0: out.push('00'); case 1: out.push('01'); break; default: out.push('0d'); }
    case 1: out.push('1'); break;
    case b: out.push('b');
  }
}
nested(0, 0); nested(0, 5); nested(2, 2);
out;
