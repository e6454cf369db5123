const a = await t({ q: [1, 'two', null] });
const b = s(41);
return [a, b, typeof t, Object.keys(globalThis).length > 0];
