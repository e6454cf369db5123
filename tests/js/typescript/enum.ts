// Enums need a transform: Kiln refuses them with a SyntaxError at the declaration.
const ok = 1;
enum Direction { Up, Down }
// expect-error: TypeScript enum is not supported: Kiln strips types but does not transform TypeScript (use a union of literals or an object)
