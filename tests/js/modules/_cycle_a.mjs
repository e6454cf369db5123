import { b, callA } from './_cycle_b.mjs';
export function a() {
  return 'a';
}
export let lateA = 'late';
print('evaluating a, b =', b); 
export const fromB = callA();
