var objects = [{}, { a: 1 }, { a: 1, b: 2 }, { a: 1, b: 2, c: 3 }, { a: 1, b: 2, c: 3, d: 4 },
  { a: 1, b: 2, c: 3, d: 4, e: 5 }, { a: 1, b: 2, c: 3, d: 4, e: 5, f: 6 }];
for (var o of objects) { o.x = 1; delete o.a; o.y = 2; }
var holes = [1, , 3];
holes[1] = 2; holes[5] = 6; holes.length = 4; holes[3] = 4;
var fresh = new Array(4);
for (var i = 0; i < 4; i += 2) fresh[i] = i;
Object.defineProperty(Array.prototype, 1, { set(v) { fresh.push('set'); }, configurable: true });
fresh[1] = 1;
delete Array.prototype[1];
var parsed = JSON.parse('[{"a":1,"b":2},{"a":3,"b":4},{"b":5,"a":6},{"a":1,"a":2,"__proto__":3}]');
parsed[0].c = 1;
var re = /(a)|(b)/g, first = re.exec('ab'), second = re.exec('ab');
[objects, holes, fresh, parsed, first[1], second[2], 'abc'.length, holes.length];
