// typescript: transpile TypeScript sources (Zod's schema definitions) to ES2015
// CommonJS with transpileModule, which parses, binds and emits without type checking.
var ROUNDS = 2;
var output = "";
for (var round = 0; round < ROUNDS; round++) {
  output = ts.transpileModule(SOURCE, {
    compilerOptions: { target: ts.ScriptTarget.ES2015, module: ts.ModuleKind.CommonJS },
    fileName: "schemas.ts"
  }).outputText;
}
emit("typescript " + ts.version + " " + output.length + " " + hex(hash(output)));
