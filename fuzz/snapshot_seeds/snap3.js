const wm = new WeakMap(); const key = {}; wm.set(key, [1.5, -0, NaN]);
const d = new Date(0); const err = new RangeError('r'); const p = Promise.reject(err); p.catch(() => {});
const view = new DataView(new ArrayBuffer(16)); view.setFloat64(0, Math.E);
const o = Object.freeze({ deep: { deeper: ['x'.repeat(30)] } });
async function* ag() { yield await tools.b(o); }
const it = ag(); const r = await it.next();
return [r.value, wm.get(key), d.getTime(), err.message, view.getUint8(0)];
