// Agent scripts cannot import or export (they are not modules).
const x = 1;
export { x };
// expect: {"kind":"Syntax","message":"SyntaxError: import and export declarations are only allowed in modules (agent/no-imports.agent.js:3:1)","type":"error"}
// expect-error: "kind":"Syntax"
