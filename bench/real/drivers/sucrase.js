// sucrase: strip types from TypeScript sources (Zod's schema definitions) and convert
// imports to CommonJS.
var ROUNDS = 5;
var h = 0x811c9dc5;
var length = 0;
for (var round = 0; round < ROUNDS; round++) {
  var code = sucrase.transform(SOURCE, { transforms: ["typescript", "imports"], filePath: "schemas.ts" }).code;
  if (round === 0) { h = hash(code, h); length = code.length; }
}
emit("sucrase " + length + " " + hex(h));
