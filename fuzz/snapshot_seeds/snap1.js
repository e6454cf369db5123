class Box { #v; constructor(v) { this.#v = v; } get v() { return this.#v; } }
function* gen() { yield 1; yield 2; }
const g = gen(); g.next();
const m = new Map([['k', new Box(1)], [2, [1, 2, 3]]]);
const s = new Set(['a']);
const re = /a(b)?/g; re.exec('xab');
const bytes = new Uint8Array([1, 2, 3]);
const sym = Symbol('s');
let text = ''; for (let i = 0; i < 40; i++) text += i;
const [a, b] = await Promise.all([tools.a(1), tools.b({ x: [true, null] })]);
return [a, b, g.next().value, m.get('k').v, [...s], re.lastIndex, bytes[2], sym.description, text.length, 2n ** 70n];
