// `using` and `await using` at the top level of a module: disposed when the module body ends.
const log = [];
using sync = { [Symbol.dispose]() { print("sync disposed", log.join()); } };
await using later = {
  async [Symbol.asyncDispose]() {
    await null;
    print("async disposed");
  },
};
log.push("body done");
print("end of body"); // expect: end of body
// expect: async disposed
// expect: sync disposed body done
