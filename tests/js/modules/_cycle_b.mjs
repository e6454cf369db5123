import { a, lateA } from './_cycle_a.mjs';
export const b = 'b';
// `a` is a hoisted function: callable before _cycle_a.mjs runs. `lateA` is not initialised yet.
export function callA() {
  return a();
}
print('evaluating b, a() =', a());
try {
  lateA;
} catch (e) {
  print(e.name);
}
