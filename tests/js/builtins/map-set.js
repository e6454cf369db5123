// Map and Set: SameValueZero keys, insertion order, live iteration.
const m = new Map([[1, 'a'], [NaN, 'n'], [-0, 'z'], ['s', 'str']]);
print(m.size, m.get(1), m.get(NaN), m.get(0), m.get('s'), m.has(+0)) // expect: 4 a n z str true
print(Object.is([...m.keys()][2], 0)) // expect: true
m.delete(1);
print([...m.keys()]) // expect: [ NaN, 0, 's' ]
const it = m.entries();
print(it.next().value) // expect: [ NaN, 'n' ]
m.set('late', 1);
m.delete(0);
print([...it]) // expect: [ [ 's', 'str' ], [ 'late', 1 ] ]
print(it.next().done) // expect: true

// strings compare by content, objects by identity
const key = 'ab' + 'c';
const sm = new Map([['abc', 1]]);
print(sm.get(key), new Map([[{}, 1]]).get({})) // expect: 1 undefined
print(new Map([[10n, 'big']]).get(10n)) // expect: big

// a large table with deletions keeps order
const big = new Map();
for (let i = 0; i < 1000; i++) big.set('k' + i, i);
for (let i = 0; i < 995; i++) big.delete('k' + i);
print(big.size, [...big.values()]) // expect: 5 [ 995, 996, 997, 998, 999 ]

// clear during iteration: the iterator sees later additions
const c = new Map([[1, 1], [2, 2]]);
const ci = c.keys();
ci.next();
c.clear();
c.set(3, 3);
print([...ci]) // expect: [ 3 ]

// forEach sees additions and skips deletions
const order = [];
const fs = new Set([1, 2, 3]);
fs.forEach(v => { order.push(v); if (v === 1) { fs.delete(2); fs.add(4); } });
print(order) // expect: [ 1, 3, 4 ]

// Set methods of ES2025
const s = new Set([1, 2, 3]);
print([...s.union(new Set([4, 1]))]) // expect: [ 1, 2, 3, 4 ]
print([...s.intersection(new Set([3, 2, 9]))]) // expect: [ 2, 3 ]
print([...s.difference(new Set([2]))]) // expect: [ 1, 3 ]
print([...s.symmetricDifference(new Set([3, 4]))]) // expect: [ 1, 2, 4 ]
print(s.isSubsetOf(new Set([1, 2, 3, 4])), s.isSupersetOf(new Set([1])), s.isDisjointFrom(new Set([7]))) // expect: true true true
const setLike = { size: 2, has: x => x === 1, keys: () => [1, 5].values() };
print([...s.union(setLike)], s.isDisjointFrom(setLike)) // expect: [ 1, 2, 3, 5 ] false
try { s.union({ size: NaN, has() {}, keys() {} }) } catch (e) { print(e.name) } // expect: TypeError
try { s.union({ size: -1, has() {}, keys() {} }) } catch (e) { print(e.name) } // expect: RangeError

print(Map.groupBy([1, 2, 3, 4], x => x % 2 ? 'odd' : 'even').get('odd')) // expect: [ 1, 3 ]
print(Object.prototype.toString.call(new Map().keys()), Object.prototype.toString.call(new Set().values())) // expect: [object Map Iterator] [object Set Iterator]
print(Set.prototype.keys === Set.prototype.values, Map.prototype[Symbol.iterator] === Map.prototype.entries) // expect: true true
try { Map() } catch (e) { print(e.name) } // expect: TypeError
try { Map.prototype.get.call(new Set(), 1) } catch (e) { print(e.name) } // expect: TypeError
try { new Map([1]) } catch (e) { print(e.name) } // expect: TypeError

// the constructor calls the (possibly overridden) adder
class CountingSet extends Set { add(v) { this.count = (this.count || 0) + 1; return super.add(v); } }
print(new CountingSet([1, 1, 2]).count) // expect: 3

// WeakMap and WeakSet
const wm = new WeakMap();
const k = {};
wm.set(k, 5);
print(wm.get(k), wm.has({}), wm.delete(k), wm.has(k)) // expect: 5 false true false
try { wm.set(1, 2) } catch (e) { print(e.name) } // expect: TypeError
try { new WeakSet().add(Symbol.for('registered')) } catch (e) { print(e.name) } // expect: TypeError
const sym = Symbol('local');
print(new WeakSet([sym]).has(sym), wm.get(1)) // expect: true undefined

// getOrInsert / getOrInsertComputed
const counts = new Map();
for (const w of ["a", "b", "a"]) counts.set(w, counts.getOrInsert(w, 0) + 1);
print([...counts].join(";")); // expect: a,2;b,1
const computed = new Map();
print(computed.getOrInsertComputed(-0, (k) => Object.is(k, 0)), computed.has(0)); // expect: true true
print(computed.getOrInsertComputed(0, () => "not called")); // expect: true
const cache = new WeakMap();
const weakKey = {};
print(cache.getOrInsertComputed(weakKey, () => 42), cache.getOrInsert(weakKey, 7)); // expect: 42 42
try { cache.getOrInsert(1, 2); } catch (e) { print(e.name); } // expect: TypeError
