// Number, Boolean and BigInt: constructors, statics and exact formatting.
print(Number("  12  "), Number(""), Number("0b101"), Number(12n), Number(), Number(undefined)); // expect: 12 0 5 12 0 NaN
print(typeof new Number(1), new Number(5) + 1, Object.prototype.toString.call(Number.prototype)); // expect: object 6 [object Number]
print(Number.MAX_SAFE_INTEGER, Number.EPSILON === 2 ** -52, Number.MIN_VALUE); // expect: 9007199254740991 true 5e-324
print(Number.isInteger(5.0), Number.isInteger("5"), Number.isSafeInteger(2 ** 53), Number.isNaN("x"), Number.isFinite("1")); // expect: true false false false false
print(Number.parseFloat === parseFloat, Number.parseInt === parseInt); // expect: true true

// toFixed: exact binary value, ties away from zero on the decimal expansion
print((1.005).toFixed(2), (1.45).toFixed(1), (2.5).toFixed(0), (-1.5).toFixed(0), (0).toFixed(2)); // expect: 1.00 1.4 3 -2 0.00
print((1e21).toFixed(2), (123.456).toFixed(10), (0.000001).toFixed(7), (-0).toFixed(1)); // expect: 1e+21 123.4560000000 0.0000010 0.0
try { (1).toFixed(101); } catch (e) { print(e.name); } // expect: RangeError

// toExponential
print((123.456).toExponential(2), (0).toExponential(), (1.25).toExponential(1), (-5e-7).toExponential()); // expect: 1.23e+2 0e+0 1.3e+0 -5e-7
print((123456).toExponential(), (1).toExponential(3), NaN.toExponential(200)); // expect: 1.23456e+5 1.000e+0 NaN

// toPrecision
print((123.456).toPrecision(4), (0.000001234).toPrecision(2), (123456).toPrecision(2), (1e21).toPrecision(3)); // expect: 123.5 0.0000012 1.2e+5 1.00e+21
print((1e-21).toPrecision(16), (0).toPrecision(3), (99.99).toPrecision(3), (5).toPrecision()); // expect: 9.999999999999999e-22 0.00 100 5
try { (1).toPrecision(0); } catch (e) { print(e.name); } // expect: RangeError

// toString with a radix
print((255).toString(16), (255).toString(2), (-255.5).toString(16), (0.5).toString(2), (3).toString(36)); // expect: ff 11111111 -ff.8 0.1 3
print((2 ** 60).toString(2).length, (NaN).toString(2), (-Infinity).toString(8)); // expect: 61 NaN -Infinity
try { (1).toString(1); } catch (e) { print(e.name); } // expect: RangeError
try { Number.prototype.toString.call("1"); } catch (e) { print(e instanceof TypeError); } // expect: true
print((1.5).toLocaleString(), new Number(7).valueOf()); // expect: 1.5 7

// Boolean
print(Boolean(""), Boolean("0"), new Boolean(false) ? "truthy" : "falsy", true.toString(), Boolean.prototype.valueOf()); // expect: false true truthy true false
try { Boolean.prototype.toString.call(1); } catch (e) { print(e instanceof TypeError); } // expect: true

// BigInt
print(BigInt(10), BigInt("0x1f"), BigInt(" 12 "), BigInt(true), BigInt(-0)); // expect: 10n 31n 12n 1n 0n
try { BigInt(1.5); } catch (e) { print(e.name); } // expect: RangeError
try { BigInt("1.5"); } catch (e) { print(e.name); } // expect: SyntaxError
try { new BigInt(1); } catch (e) { print(e.name); } // expect: TypeError
print(BigInt.asIntN(8, 255n), BigInt.asUintN(8, -1n), BigInt.asIntN(64, 2n ** 63n), BigInt.asUintN(0, 5n)); // expect: -1n 255n -9223372036854775808n 0n
print((255n).toString(16), (-10n).toString(2), Object(3n).valueOf(), typeof Object(1n)); // expect: ff -1010 3n object
print(Object.prototype.toString.call(1n), BigInt.prototype[Symbol.toStringTag]); // expect: [object BigInt] BigInt
try { BigInt.asUintN(2 ** 40, -1n); } catch (e) { print(e.name); } // expect: RangeError
