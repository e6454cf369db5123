// `await using`: [Symbol.asyncDispose] results are awaited one by one, a [Symbol.dispose]
// method serves as a fallback whose result is not awaited, and null/undefined still cost
// one await when the scope is left.
const log = [];
function asyncResource(name, fail) {
  return {
    async [Symbol.asyncDispose]() {
      log.push(name + " start");
      await null;
      log.push(name + " end");
      if (fail) throw new Error(name + " failed");
    },
  };
}
function syncResource(name) {
  return {
    [Symbol.dispose]() {
      log.push(name);
      // A thenable returned from the fallback is not awaited.
      return { then() { log.push("then called"); } };
    },
  };
}

async function main() {
  {
    await using a = asyncResource("a"), b = asyncResource("b");
    await using s = syncResource("s");
    log.push("body");
  }
  print(log.join(", ")); // expect: body, s, b start, b end, a start, a end
  log.length = 0;

  try {
    await using x = asyncResource("x", true);
    await using y = asyncResource("y", true);
  } catch (e) {
    print(e instanceof SuppressedError, e.error.message, e.suppressed.message); // expect: true x failed y failed
  }
  log.length = 0;

  // for await with per-iteration async disposal, and early exits.
  for (await using r of [asyncResource("r1"), asyncResource("r2")]) {
    log.push("iteration");
    if (log.length > 3) break;
  }
  print(log.join(", ")); // expect: iteration, r1 start, r1 end, iteration, r2 start, r2 end
  log.length = 0;

  // A null resource still awaits once: a promise job queued before leaving runs first.
  let ticked = false;
  {
    await using nothing = null;
    Promise.resolve().then(() => { ticked = true; });
  }
  print(ticked); // expect: true

  // Non-object values are a TypeError at the declaration.
  try {
    await using bad = 1;
  } catch (e) {
    print(e.constructor.name); // expect: TypeError
  }
  return "done";
}

// An async generator's return() disposes too.
async function* agen() {
  await using g = asyncResource("g");
  yield 1;
  yield 2;
}
async function generatorReturn() {
  const it = agen();
  await it.next();
  const result = await it.return(5);
  print(result.value, result.done, log.join(", "));
}
main()
  .then((v) => {
    print(v);
    log.length = 0;
    return generatorReturn();
  })
  .catch((e) => print("failed:", e));
// expect: done
// expect: 5 true g start, g end
