// A module waits for its dependency's top-level await.
import { value } from './_tla_dep.mjs';
// expect: dep start
// expect: dep end
print('main', value); // expect: main 42
const later = await Promise.resolve('awaited');
print(later); // expect: awaited
for await (const x of [Promise.resolve(1), 2]) print(x);
// expect: 1
// expect: 2
