// Atomics.wait / waitAsync / notify in one runtime. The CLI's agent cannot block, so
// Atomics.wait throws; waitAsync waiters settle through the runtime's event loop.
var i32 = new Int32Array(new SharedArrayBuffer(16));
try { Atomics.wait(i32, 0, 0, 0); } catch (e) { print(e.name); } // expect: TypeError
try { Atomics.wait(new Int32Array(4), 0, 0, 0); } catch (e) { print(e.name); } // expect: TypeError
print(Atomics.notify(new Int32Array(4), 0)) // expect: 0

var r = Atomics.waitAsync(i32, 0, 1);
print(r.async, r.value) // expect: false not-equal
r = Atomics.waitAsync(i32, 0, 0, 0);
print(r.async, r.value) // expect: false timed-out
r = Atomics.waitAsync(i32, 0, 0, -5);
print(r.async, r.value) // expect: false timed-out

// Notified waiters settle "ok" in FIFO order; notify counts only waiters on its index.
var order = [];
var a = Atomics.waitAsync(i32, 1, 0);
var b = Atomics.waitAsync(i32, 1, 0);
var c = Atomics.waitAsync(i32, 2, 0);
print(a.async, a.value instanceof Promise) // expect: true true
a.value.then(v => order.push('a ' + v));
b.value.then(v => order.push('b ' + v));
c.value.then(v => order.push('c ' + v));
print(Atomics.notify(i32, 1, 1)) // expect: 1
print(Atomics.notify(i32, 3)) // expect: 0
print(Atomics.notify(i32, 1)) // expect: 1
print(Atomics.notify(i32, 2, 0)) // expect: 0
print(Atomics.notify(i32, 2, Infinity)) // expect: 1

// A BigInt64Array waits on 64-bit values.
var i64 = new BigInt64Array(new SharedArrayBuffer(16));
print(Atomics.waitAsync(i64, 0, 1n << 40n).value) // expect: not-equal

// A timeout settles "timed-out" after at least its time, from the event loop.
var start = Date.now();
Atomics.waitAsync(i32, 0, 0, 20).value.then(v => {
  print(v, Date.now() - start >= 20) // expect: timed-out true
  print(order.join()) // expect: a ok,b ok,c ok
});
