// bn.js: modular exponentiation with Montgomery reduction (512-bit modulus and
// exponent), and multiplication, division and conversions of a 3759-bit factorial.
var random = new Random(13);
function randomHex(digits) {
  var s = "";
  for (var i = 0; i < digits; i++) s += "0123456789abcdef".charAt(random.int(16));
  return s;
}
var modulus = new BN(randomHex(128), 16).setn(511, 1).setn(0, 1);
var red = BN.mont(modulus);
var h = 0x811c9dc5;
for (var round = 0; round < 3; round++) {
  var base = new BN(randomHex(120), 16).toRed(red);
  var exponent = new BN(randomHex(128), 16);
  var result = base.redPow(exponent).fromRed();
  h = hash(result.toString(16), h);
}
var product = new BN(1);
for (var k = 1; k < 500; k++) product = product.mul(new BN(k));
var quotient = product.div(modulus);
h = hash(product.toString(10), h);
h = hash(quotient.mod(new BN(1000000007)).toString(), h);
emit("bn.js " + product.bitLength() + " " + hex(h));
