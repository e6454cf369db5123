// Live bindings, default and namespace imports, re-exports.
import Point, { counter, increment, count, extra, more } from './_lib.mjs';
import * as lib from './_lib.mjs';

print(counter, count); // expect: 0 0
increment();
print(counter, count, lib.counter); // expect: 1 1 1
print(Point.name, extra, more.extra, more.default); // expect: Point extra extra not re-exported by export *
print(Object.keys(lib).join()); // expect: count,counter,default,extra,increment,more
print(lib[Symbol.toStringTag], Object.isFrozen(lib), Reflect.set(lib, 'counter', 5)); // expect: Module false false
print('extra' in lib, 'missing' in lib, delete lib.missing); // expect: true false true
try {
  counter = 2;
} catch (e) {
  print(e.name); // expect: TypeError
}
print(this); // expect: undefined
