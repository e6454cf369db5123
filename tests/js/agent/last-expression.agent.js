// Without a top-level return, the value of the last expression statement is the result.
const items = [3, 1, 2];
items.sort();
if (items.length > 2) {
  items.map((n) => n * 10);
}
// expect: {"type":"complete","value":[10,20,30]}
