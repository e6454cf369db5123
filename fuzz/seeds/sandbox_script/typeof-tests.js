var out = [];
out.push(typeof undeclared === 'undefined', 'undefined' == typeof undeclared,
  typeof out !== "object", "function" != typeof print, typeof 1n === 'bigint',
  typeof null === 'null', typeof '' === '\u0073tring', typeof typeof 0 === 'string',
  typeof Symbol() == 'symbol', typeof out === ('obj' + 'ect'));
try { out.push(typeof later === 'undefined'); let later = 1; } catch (e) { out.push(e.name); }
if (typeof out.push === 'function') out.push('callable');
out;
