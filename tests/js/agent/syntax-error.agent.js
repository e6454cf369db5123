// A syntax error in an agent script names the right line and column.
const total = await 1;

if (total > {) return total;
// expect: {"type":"error","kind":"Syntax","message":"SyntaxError: Unexpected token (agent/syntax-error.agent.js:4:14)"}
// expect-error: "kind":"Syntax"
