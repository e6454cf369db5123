// A `return` inside blocks, loops, switch and try/finally ends the whole script;
// the finally blocks still run and code after the return does not.
// capability: tools.log
const seen = [];
for (const n of [1, 2, 3, 4]) {
  switch (n % 2) {
    case 0:
      try {
        if (n === 4) {
          while (true) {
            return { seen, n };
          }
        }
      } finally {
        seen.push(`finally ${n}`);
      }
      break;
    default:
      seen.push(n);
  }
}
tools.log("never reached");
// expect: {"type":"complete","value":{"seen":[1,"finally 2",3,"finally 4"],"n":4}}
