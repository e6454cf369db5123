// A syntax error in an agent script names the right line and column.
const total = await 1;

if (total > {) return total;
// expect: {"kind":"Syntax","message":"SyntaxError: Unexpected token (agent/syntax-error.agent.js:4:14)","type":"error"}
// expect-error: "kind":"Syntax"
