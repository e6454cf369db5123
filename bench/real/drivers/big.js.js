// big.js: exact decimal sums, products and divisions: a ledger in cents, compound
// interest, and e by its series.
Big.DP = 120;
var random = new Random(9);
var balance = new Big(0);
for (var i = 0; i < 15000; i++) {
  var amount = new Big(random.int(10000000)).div(100);
  balance = random.int(3) ? balance.plus(amount) : balance.minus(amount.times("0.97"));
}
var rate = new Big("1.0004166666666666666666667");
var principal = new Big("2500000.00");
for (var m = 0; m < 360; m++) principal = principal.times(rate).round(40);
var e = new Big(1);
var term = new Big(1);
for (var n = 1; n < 120; n++) {
  term = term.div(n);
  e = e.plus(term);
}
emit("big.js " + balance.toFixed(2) + " " + principal.toFixed(10) + " " + e.toFixed(60));
