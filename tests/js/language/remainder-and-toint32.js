// `%` and ToInt32 of integral doubles beyond int32 (computed through 64-bit integers),
// of negative int32 dividends, and of the operands that stay floating-point.
function show(x) { return Object.is(x, -0) ? '-0' : String(x); }
function rem(a, b) { return a % b; }
function int32(a) { return a | 0; }
function uint32(a) { return a >>> 0; }
print(show(rem(-7, 2))); // expect: -1
print(show(rem(-4, 2))); // expect: -0
print(show(rem(-0, 5))); // expect: -0
print(show(rem(2147483648, 3))); // expect: 2
print(show(rem(-2147483649, 10))); // expect: -9
print(show(rem(9007199254740994, 1000000000))); // expect: 254740994
print(show(rem(4611686018427388000, 7))); // expect: 4
print(show(rem(9223372036854776000, 7))); // expect: 1
print(show(rem(-9223372036854776000, -7))); // expect: -1
print(show(rem(1e+300, 7))); // expect: 1
print(show(rem(5.5, 2))); // expect: 1.5
print(show(rem(-5.5, 2))); // expect: -1.5
print(show(rem(7, -0))); // expect: NaN
print(show(rem(7, Infinity))); // expect: 7
print(show(rem(-2147483648, -1))); // expect: -0
print(show(rem(1000000000000003, 67108864))); // expect: 13008899
print(show(rem(-4611686018427388000, 1099511627777))); // expect: -1099507433473
print(int32(9007199254740992), uint32(9007199254740992)); // expect: 0 0
print(int32(1099511627781), uint32(1099511627781)); // expect: 5 5
print(int32(-1099511627781), uint32(-1099511627781)); // expect: -5 4294967291
print(int32(4611686020574872000), uint32(4611686020574872000)); // expect: -2147483648 2147483648
print(int32(9223372036854776000), uint32(9223372036854776000)); // expect: 0 0
print(int32(18446744082299486000), uint32(18446744082299486000)); // expect: 0 0
print(int32(-1.9), uint32(-1.9)); // expect: -1 4294967295
print(int32(NaN), uint32(NaN)); // expect: 0 0
print(int32(Infinity), uint32(Infinity)); // expect: 0 0
print(int32(12884901895), uint32(12884901895)); // expect: 7 7
