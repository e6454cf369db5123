// Async generators: requests queue while the body awaits; yield* awaits each inner result.
const log = [];
async function* slow() {
  await null;
  log.push("body resumed");
  yield 1;
  yield 2;
}
const s = slow();
s.next().then((r) => log.push(`a ${r.value} ${r.done}`));
s.next().then((r) => log.push(`b ${r.value} ${r.done}`));
s.next().then((r) => log.push(`c ${r.value} ${r.done}`));

// return(promise) at a yield awaits the promise inside the body: a rejection is thrown there.
async function* guarded() {
  try {
    yield 1;
  } catch (e) {
    log.push(`caught ${e}`);
  }
}
const g = guarded();
g.next().then(() =>
  g.return(Promise.reject("boom")).then((r) => log.push(`return ${r.value} ${r.done}`)),
);

// yield* over a sync iterable and over an async generator.
async function* inner() {
  const x = yield "i1";
  log.push(`inner got ${x}`);
  return "inner done";
}
async function* outer() {
  yield* ["s1", "s2"];
  const r = yield* inner();
  log.push(`outer got ${r}`);
}
(async () => {
  const o = outer();
  for (let r = await o.next(); !r.done; r = await o.next("sent")) log.push(`yielded ${r.value}`);
  // return() through yield* reaches the inner generator's finally.
  async function* withFinally() {
    try {
      yield "x";
    } finally {
      log.push("inner finally");
    }
  }
  async function* delegating() {
    yield* withFinally();
  }
  const d = delegating();
  await d.next();
  const r = await d.return("early");
  log.push(`early ${r.value} ${r.done}`);
})().then(() => print(log.join("\n")));
// expect: body resumed
// expect: a 1 false
// expect: caught boom
// expect: yielded s1
// expect: b 2 false
// expect: c undefined true
// expect: return undefined true
// expect: yielded s2
// expect: yielded i1
// expect: inner got sent
// expect: outer got inner done
// expect: inner finally
// expect: early early true
