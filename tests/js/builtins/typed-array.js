// Typed arrays: element conversion, views over one buffer, detached and resizable buffers.
const u8 = new Uint8Array([1, 2, 300, -1]);
print(u8) // expect: Uint8Array(4) [ 1, 2, 44, 255 ]
print(new Uint8ClampedArray([300, -5, 1.5, 2.5])) // expect: Uint8ClampedArray(4) [ 255, 0, 2, 2 ]
print(new Int8Array([200])[0], new Uint32Array([-1])[0]) // expect: -56 4294967295
print(new Float32Array([0.1])[0], new Float16Array([1.337])[0]) // expect: 0.10000000149011612 1.3369140625

// canonical numeric keys never become ordinary properties
u8[10] = 5;
u8['-0'] = 5;
u8['1.5'] = 5;
print(u8[10], u8['-0'], u8['1.5'], Object.keys(u8)) // expect: undefined undefined undefined [ '0', '1', '2', '3' ]
print('1' in u8, '4' in u8, delete u8[0], delete u8[9]) // expect: true false false true

// views share the buffer
const buf = new ArrayBuffer(8);
const i32 = new Int32Array(buf);
const bytes = new Uint8Array(buf, 4, 2);
i32[1] = 0x01020304;
print(bytes, bytes.byteOffset, bytes.byteLength) // expect: Uint8Array(2) [ 4, 3 ] 4 2

// BigInt arrays
const big = new BigInt64Array(2);
big[0] = -1n;
print(big[0], new BigUint64Array(big.buffer)[0]) // expect: -1n 18446744073709551615n
try { big[1] = 1; } catch (e) { print(e.constructor.name) } // expect: TypeError

// methods
const ta = Int16Array.from([5, -3, 10, 0]);
print(ta.toSorted(), ta.toReversed(), ta.with(0, 7)) // expect: Int16Array(4) [ -3, 0, 5, 10 ] Int16Array(4) [ 0, 10, -3, 5 ] Int16Array(4) [ 7, -3, 10, 0 ]
print(ta.map(x => x * 2).join('|'), ta.filter(x => x > 0), ta.at(-1)) // expect: 10|-6|20|0 Int16Array(2) [ 5, 10 ] 0
print(ta.subarray(1, 3), ta.slice(-2), [...ta.entries()][1]) // expect: Int16Array(2) [ -3, 10 ] Int16Array(2) [ 10, 0 ] [ 1, -3 ]
print(Array.prototype.includes.call(ta, 10), Object.prototype.toString.call(ta)) // expect: true [object Int16Array]

// DataView: both byte orders
const dv = new DataView(new ArrayBuffer(8));
dv.setUint16(0, 0x1234);
print(dv.getUint16(0).toString(16), dv.getUint16(0, true).toString(16)) // expect: 1234 3412
dv.setFloat64(0, Math.PI, true);
print(dv.getFloat64(0, true) === Math.PI, dv.getBigInt64(0, true)) // expect: true 4614256656552045848n

// detaching through transfer
const src = new ArrayBuffer(4);
const view = new Uint8Array(src);
view[0] = 9;
const moved = src.transfer(8);
print(src.detached, src.byteLength, view.length, view[0], moved.byteLength, new Uint8Array(moved)[0]) // expect: true 0 0 undefined 8 9
try { view.fill(1); } catch (e) { print(e.constructor.name) } // expect: TypeError

// resizable buffers and length-tracking views
const rab = new ArrayBuffer(4, { maxByteLength: 16 });
const tracking = new Uint16Array(rab);
const fixed = new Uint16Array(rab, 0, 2);
rab.resize(10);
print(tracking.length, fixed.length) // expect: 5 2
rab.resize(2);
print(tracking.length, fixed.length, fixed.byteOffset) // expect: 1 0 0
try { new ArrayBuffer(2 ** 40); } catch (e) { print(e.constructor.name) } // expect: RangeError

// Atomics on shared and unshared memory
const shared = new Int32Array(new SharedArrayBuffer(8));
print(Atomics.add(shared, 0, 5), Atomics.compareExchange(shared, 0, 5, 7), Atomics.load(shared, 0)) // expect: 0 5 7
print(Atomics.notify(shared, 0, 1), Atomics.isLockFree(4)) // expect: 0 true
try { Atomics.wait(shared, 0, 7, 0); } catch (e) { print(e.constructor.name) } // expect: TypeError
