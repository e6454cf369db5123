// Regression: Promise.resolve, Promise.reject, Promise.try, then() on a subclass and
// the async-from-sync iterator held the new promise or capability unrooted while
// JavaScript ran (a thenable's `then` getter, a subclass's executor, the callback).
// The gc-stress build found it in test262 (Promise.resolve with a poisoned `then`,
// Promise.try, finally on a subclass, Array.fromAsync): writes to freed promises.
function churn() { var junk = []; for (var i = 0; i < 50; i++) junk.push({ i }); }
var thenable = { get then() { churn(); return undefined; } };
Promise.resolve(thenable).then(function (v) { print("resolve", v === thenable); });
class Sub extends Promise {
  constructor(executor) { churn(); super(executor); churn(); }
}
Sub.reject(1).catch(function (e) { print("reject", e); });
Promise.try(function () { churn(); return 2; }).then(function (v) { print("try", v); });
Sub.resolve(3).then(function (v) { churn(); return v; }).then(function (v) { print("then", v); });
(async function () {
  for await (var v of [Promise.resolve(4)]) { churn(); print("for await", v); }
})();
// expect: resolve true
// expect: reject 1
// expect: try 2
// expect: then 3
// expect: for await 4
