// import(), import.meta and JSON modules.
import data from './_data.json' with { type: 'json' };
print(data.name, data.list.length); // expect: kiln 3
print(typeof import.meta, Object.getPrototypeOf(import.meta)); // expect: object null
print(import.meta.url.endsWith('dynamic.mjs')); // expect: true
const ns = await import('./_lib.mjs');
print(ns.extra, ns === (await import('./_lib.mjs'))); // expect: extra true
try {
  await import('./_does_not_exist.mjs');
} catch (e) {
  print(e.name); // expect: TypeError
}
try {
  await import('./_data.json', { with: { type: 'css' } });
} catch (e) {
  print(e.name); // expect: SyntaxError
}
