export let counter = 0;
export function increment() {
  counter++;
}
export default class Point {}
export { counter as count };
export * from './_more.mjs';
export * as more from './_more.mjs';
