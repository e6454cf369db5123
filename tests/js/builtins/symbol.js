// Symbol: constructor, registry, well-known symbols and the prototype.
const s = Symbol("desc");
print(typeof s, s.toString(), s.description, Symbol().description); // expect: symbol Symbol(desc) desc undefined
try { new Symbol(); } catch (e) { print(e instanceof TypeError); } // expect: true
print(Symbol.for("k") === Symbol.for("k"), Symbol.keyFor(Symbol.for("k")), Symbol.keyFor(s)); // expect: true k undefined
try { Symbol.keyFor("k"); } catch (e) { print(e instanceof TypeError); } // expect: true
print(Symbol.iterator.toString(), typeof Symbol.asyncIterator, Symbol.hasInstance.description); // expect: Symbol(Symbol.iterator) symbol Symbol.hasInstance
print(Object(s) == s, Object(s).valueOf() === s, Object.prototype.toString.call(s)); // expect: true true [object Symbol]
print(Symbol.prototype[Symbol.toPrimitive].name, Symbol.prototype[Symbol.toStringTag]); // expect: [Symbol.toPrimitive] Symbol
const d = Object.getOwnPropertyDescriptor(Symbol, "iterator");
print(d.writable, d.enumerable, d.configurable); // expect: false false false
const o = { [s]: 1 };
print(o[s], Object.keys(o).length); // expect: 1 0
try { s + ""; } catch (e) { print(e instanceof TypeError); } // expect: true
print(String(s), `${String(Symbol.for("x"))}`); // expect: Symbol(desc) Symbol(x)
