// Direct eval code sees the private names of the class bodies around the call.
class C {
  #m() { return "m"; }
  #f = 1;
  static #s = 2;
  get() { return eval("this.#m() + this.#f + C.#s + (#f in this)"); }
  nested() { return eval("eval('this.#f')"); }
  arrow() { return (() => eval("this.#f"))(); }
}
print(new C().get(), new C().nested(), new C().arrow()); // expect: m12true 1 1
try { eval("this.#f"); } catch (e) { print(e.constructor.name); } // expect: SyntaxError
try { new C().get.call({}); } catch (e) { print(e.constructor.name); } // expect: TypeError
