// Iterator helpers (ES2025) and the Iterator constructor.
function* g() { yield 1; yield 2; yield 3; yield 4; }
print(g().map(x => x * 2).toArray(), g().filter(x => x % 2).toArray()) // expect: [ 2, 4, 6, 8 ] [ 1, 3 ]
print(g().take(2).toArray(), g().drop(3).toArray(), g().drop(Infinity).toArray()) // expect: [ 1, 2 ] [ 4 ] []
print(g().flatMap(x => [x, -x]).take(5).toArray()) // expect: [ 1, -1, 2, -2, 3 ]
print(g().reduce((a, b) => a + b), g().reduce((a, b) => a + b, 10)) // expect: 10 20
print(g().some(x => x > 3), g().every(x => x > 3), g().find(x => x > 2)) // expect: true false 3
let weighted = 0;
g().forEach((x, i) => { weighted += x * i; });
print(weighted) // expect: 20
try { [].values().reduce((a, b) => a) } catch (e) { print(e.name) } // expect: TypeError

// laziness: nothing is pulled before next()
const pulled = [];
const lazy = { next() { pulled.push('next'); return { done: false, value: 1 }; }, __proto__: Iterator.prototype };
const mapped = lazy.map(x => x + 1);
print(pulled.length, mapped.next().value, pulled.length) // expect: 0 2 1

// return() closes the underlying iterator; argument errors close it too
let closed = 0;
const closable = { next() { return { value: 1, done: false }; }, return() { closed++; return {}; }, __proto__: Iterator.prototype };
const h = closable.map(x => x);
h.next();
print(h.return().done, closed, h.next().done) // expect: true 1 true
try { closable.filter('nope') } catch (e) { print(e.name, closed) } // expect: TypeError 2
try { closable.take(-1) } catch (e) { print(e.name, closed) } // expect: RangeError 3
print(closable.some(x => true), closed) // expect: true 4
print(closable.take(0).next().done, closed) // expect: true 5

// flatMap rejects strings as inner iterables
try { g().flatMap(x => 'ab').next() } catch (e) { print(e.name) } // expect: TypeError

// Iterator.from wraps iterators that do not inherit from Iterator.prototype
const bare = { i: 0, next() { return this.i < 2 ? { value: this.i++, done: false } : { done: true }; } };
const wrapped = Iterator.from(bare);
print(wrapped instanceof Iterator, wrapped === bare, wrapped.toArray()) // expect: true false [ 0, 1 ]
print(Iterator.from('ab').toArray(), Iterator.from([5, 6]).map(x => x + 1).toArray()) // expect: [ 'a', 'b' ] [ 6, 7 ]
const gen = g();
print(Iterator.from(gen) === gen) // expect: true

// the constructor is abstract; subclasses work
try { new Iterator() } catch (e) { print(e.name) } // expect: TypeError
try { Iterator() } catch (e) { print(e.name) } // expect: TypeError
class Countdown extends Iterator {
  constructor(n) { super(); this.n = n; }
  next() { return this.n > 0 ? { value: this.n--, done: false } : { value: undefined, done: true }; }
}
print(new Countdown(3).toArray(), new Countdown(2) instanceof Iterator) // expect: [ 3, 2, 1 ] true

// Symbol.toStringTag and constructor are accessors that ignore Iterator.prototype itself
print(Iterator.prototype[Symbol.toStringTag], Iterator.prototype.constructor === Iterator) // expect: Iterator true
print(Object.prototype.toString.call(g().map(x => x))) // expect: [object Iterator Helper]
const own = Object.create(Iterator.prototype);
own[Symbol.toStringTag] = 'Mine';
print(Object.prototype.toString.call(own)) // expect: [object Mine]
try { Iterator.prototype[Symbol.toStringTag] = 'x' } catch (e) { print(e.name) } // expect: TypeError

// Iterator.concat, zip, zipKeyed, chunks, windows, includes
print(Iterator.concat([1, 2], new Set([3]), "ab".split("")).toArray().join()); // expect: 1,2,3,a,b
print(JSON.stringify(Iterator.zip([[1, 2, 3], ["a", "b"]]).toArray())); // expect: [[1,"a"],[2,"b"]]
print(JSON.stringify(Iterator.zip([[1, 2], ["a"]], { mode: "longest", padding: [0, "z"] }).toArray())); // expect: [[1,"a"],[2,"z"]]
try { Iterator.zip([[1, 2], ["a"]], { mode: "strict" }).toArray(); } catch (e) { print(e.name); } // expect: TypeError
print(JSON.stringify(Iterator.zipKeyed({ n: [1, 2], s: ["x", "y"] }).toArray())); // expect: [{"n":1,"s":"x"},{"n":2,"s":"y"}]
print(JSON.stringify([1, 2, 3, 4, 5].values().chunks(2).toArray())); // expect: [[1,2],[3,4],[5]]
print(JSON.stringify([1, 2, 3, 4].values().windows(3).toArray())); // expect: [[1,2,3],[2,3,4]]
print(JSON.stringify([1, 2].values().windows(3, "allow-partial").toArray())); // expect: [[1,2]]
print([1, NaN, 3].values().includes(NaN), [1, 2, 3].values().includes(1, 1)); // expect: true false
let includesClosed = 0;
const counting = { next: () => ({ value: 1, done: false }), return() { includesClosed++; return {}; }, __proto__: Iterator.prototype };
print(counting.includes(1), includesClosed); // expect: true 1
