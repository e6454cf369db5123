// Agent scripts cannot import or export (they are not modules).
const x = 1;
export { x };
// expect: {"type":"error","kind":"Syntax","message":"SyntaxError: import and export declarations are only allowed in modules (agent/no-imports.agent.js:3:1)"}
// expect-error: "kind":"Syntax"
