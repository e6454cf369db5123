// super() and super.x inside arrow functions of derived constructors.
class A {
  constructor(v) { this.a = v; }
  get x() { return this.a; }
}
class B extends A {
  field = "f";
  constructor() {
    const init = () => super(10);
    init();
    this.b = 2;
  }
  m() { return (() => super.x)(); }
}
var b = new B();
print(b.a + " " + b.b + " " + b.field + " " + b.m()); // expect: 10 2 f 10

class Twice extends A {
  constructor() {
    const s = () => super(1);
    s();
    try { s(); } catch (e) { print(e.constructor.name); }
  }
}
new Twice(); // expect: ReferenceError

class Before extends A {
  constructor() {
    let early;
    try { this.x; } catch (e) { early = e.constructor.name; }
    (() => super(3))();
    this.early = early;
  }
}
var before = new Before();
print(before.a + " " + before.early); // expect: 3 ReferenceError

class NewTarget extends A {
  constructor() { (() => super())(); print(new.target === NewTarget); }
}
new NewTarget(); // expect: true

class ViaEval extends A {
  constructor() { eval("super(4)"); }
}
print(new ViaEval().a); // expect: 4

class Spread extends A {
  constructor(...args) { (() => super(...args))(); }
}
print(new Spread(8).a); // expect: 8
