// decimal.js: pi by Machin's formula, e and square roots, ln and exp at high precision.
Decimal.set({ precision: 200, rounding: Decimal.ROUND_HALF_EVEN });
function arctanInverse(x) {
  var x2 = new Decimal(x * x);
  var term = new Decimal(1).div(x);
  var sum = term;
  var epsilon = new Decimal(10).pow(-205);
  for (var n = 1; term.abs().gt(epsilon); n++) {
    term = term.div(x2).neg();
    sum = sum.plus(term.div(2 * n + 1));
  }
  return sum;
}
var pi = arctanInverse(5).times(16).minus(arctanInverse(239).times(4));
var h = hash(pi.toString());
var acc = new Decimal(0);
for (var i = 1; i <= 30; i++) {
  acc = acc.plus(new Decimal(i).sqrt()).plus(new Decimal(i).ln().div(i));
}
h = hash(acc.toFixed(150), h);
var e = new Decimal(1).exp();
h = hash(e.toSignificantDigits(150).toString(), h);
emit("decimal.js " + pi.toString().slice(0, 30) + " " + hex(h));
