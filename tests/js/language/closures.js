// Closures capture variables, not values; `let` in loops binds per iteration.
function makeCounter() {
  let n = 0;
  return { inc: () => ++n, get: () => n };
}
const c = makeCounter();
c.inc(); c.inc();
print(c.get()); // expect: 2

const fs = [];
for (let i = 0; i < 3; i++) fs.push(() => i);
print(fs.map(f => f()).join()); // expect: 0,1,2

var gs = [];
for (var j = 0; j < 3; j++) gs.push(function () { return j; });
print(gs.map(f => f()).join()); // expect: 3,3,3

// A primitive `this` is boxed once per sloppy call: every `this` is the same wrapper.
function touch() { this.touched = true; return this.touched && this; }
const boxed = touch.call(1);
print(typeof boxed, boxed.touched); // expect: object true
