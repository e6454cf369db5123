// Leaving a for-of loop or an array destructuring early closes its iterator: also when a
// generator suspended inside it is ended by `return()`.
var log = [];
function counting(name) {
  return {
    [Symbol.iterator]() {
      return {
        next() { return { value: undefined, done: false }; },
        return() { log.push(name + " closed"); return {}; },
      };
    },
  };
}

function* inLoop() {
  try {
    for (var x of counting("loop")) { yield x; }
  } finally {
    log.push("finally");
  }
}
var g = inLoop();
g.next();
print(JSON.stringify(g.return(7))); // expect: {"value":7,"done":true}
print(log.join(", ")); // expect: loop closed, finally

log = [];
function* inPattern() {
  var a;
  [a = yield] = counting("pattern");
  log.push("unreachable");
}
g = inPattern();
g.next();
g.return(1);
print(log.join(", ")); // expect: pattern closed

// A `return` method that throws replaces the return.
function* throwsOnClose() {
  for (var x of { [Symbol.iterator]() { return { next() { return { done: false }; }, return() { throw new Error("from return"); } }; } }) {
    yield x;
  }
}
g = throwsOnClose();
g.next();
try { g.return(1); } catch (e) { print(e.message); } // expect: from return

// `break` out of `for await` awaits the result of the iterator's `return`.
log = [];
var asyncIterable = {
  [Symbol.asyncIterator]() { return this; },
  next() { return Promise.resolve({ value: 1, done: false }); },
  return() {
    log.push("return");
    return { then(resolve) { log.push("then"); resolve({ done: true }); } };
  },
};
async function breakOut() {
  for await (var x of asyncIterable) { break; }
  log.push("after");
}
breakOut().then(() => print(log.join(", "))); // expect: return, then, after

// An async generator ended by `return()` inside `for await` awaits the close as well.
var closeLog = [];
var slowClose = {
  [Symbol.asyncIterator]() { return this; },
  next() { return Promise.resolve({ value: 1, done: false }); },
  return() {
    closeLog.push("return");
    return { then(resolve) { closeLog.push("then"); resolve({ done: true }); } };
  },
};
async function* asyncLoop() { for await (var x of slowClose) { yield x; } }
var ag = asyncLoop();
ag.next().then(() => ag.return(2)).then((r) => print(closeLog.join(", "), r.value, r.done)); // expect: return, then 2 true
