// Math functions and constants, including signed zeros and NaN.
const isNegZero = (x) => x === 0 && 1 / x < 0;
print(Math.PI, Math.E, Math.SQRT2, Object.prototype.toString.call(Math)); // expect: 3.141592653589793 2.718281828459045 1.4142135623730951 [object Math]
print(Math.max(), Math.min(), Math.max(1, NaN, 3), isNegZero(Math.min(0, -0)), Math.max(-0, 0)); // expect: -Infinity Infinity NaN true 0
print(Math.round(2.5), Math.round(-2.5), isNegZero(Math.round(-0.4)), Math.round(0.49999999999999994)); // expect: 3 -2 true 0
print(Math.trunc(-4.7), Math.sign(-3), isNegZero(Math.sign(-0)), Math.ceil(-0.5) === 0, isNegZero(Math.ceil(-0.5))); // expect: -4 -1 true true true
print(Math.abs(-5), Math.floor(-0.5), Math.sqrt(16), Math.cbrt(-27), Math.pow(2, 10), Math.pow(1, Infinity)); // expect: 5 -1 4 -3 1024 NaN
print(Math.hypot(3, 4), Math.hypot(), Math.hypot(NaN, Infinity), Math.hypot(1e200, 1e200) > 1.4e200); // expect: 5 0 Infinity true
print(Math.clz32(1), Math.clz32(0), Math.imul(3, 4), Math.imul(0xffffffff, 5)); // expect: 31 32 12 -5
print(Math.fround(5.5), Math.fround(5.05), Math.f16round(1.337), Math.f16round(65520)); // expect: 5.5 5.050000190734863 1.3369140625 Infinity
print(Math.log2(8), Math.log10(1000), Math.exp(0), isNegZero(Math.expm1(-0)), isNegZero(Math.atanh(-0))); // expect: 3 3 1 true true
print(Math.atan2(0, -0) === Math.PI, Math.sinh(0), Math.cosh(0), Math.tanh(Infinity)); // expect: true 0 1 1
let r = Math.random();
print(r >= 0 && r < 1, Math.random() !== Math.random()); // expect: true true
let calls = 0;
Math.max({ valueOf() { calls++; return NaN; } }, { valueOf() { calls++; return 1; } });
print(calls); // expect: 2
print(Math.max.length, Math.hypot.length, Math.abs.name); // expect: 2 2 abs

// Math.sumPrecise adds exactly and rounds once.
print(Math.sumPrecise([1e20, 0.1, -1e20])); // expect: 0.1
print(Math.sumPrecise([1e308, 1e308, -1e308])); // expect: 1e+308
print(Object.is(Math.sumPrecise([]), -0), Math.sumPrecise([Infinity, -Infinity])); // expect: true NaN
try { Math.sumPrecise([1, "2"]); } catch (e) { print(e.name); } // expect: TypeError
