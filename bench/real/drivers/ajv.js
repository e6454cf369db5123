// ajv: compile a JSON Schema (draft-07 keywords: nested objects, arrays, enums,
// patterns, formats off) and validate generated documents, valid and invalid.
var ajv = new Ajv({ allErrors: true });
var schema = {
  type: "object",
  required: ["id", "name", "email", "tags", "address"],
  additionalProperties: false,
  properties: {
    id: { type: "integer", minimum: 0 },
    name: { type: "string", minLength: 2, maxLength: 60 },
    email: { type: "string", pattern: "^[a-z]+@[a-z]+\\.(com|org)$" },
    age: { type: "integer", minimum: 0, maximum: 150 },
    tags: { type: "array", items: { type: "string", enum: WORDS.slice(0, 40) }, uniqueItems: true, maxItems: 8 },
    address: {
      type: "object",
      required: ["street", "zip"],
      properties: { street: { type: "string" }, zip: { type: "string", pattern: "^[0-9]{5}$" }, country: { enum: ["DE", "FR", "US"] } }
    },
    scores: { type: "array", items: { type: "number", exclusiveMinimum: 0 } }
  }
};
var validate = ajv.compile(schema);
var random = new Random(21);
var valid = 0, errors = 0, h = 0x811c9dc5;
for (var i = 0; i < 20000; i++) {
  var doc = userDocument(random, i);
  if (validate(doc)) valid++;
  else {
    errors += validate.errors.length;
    h = hash(validate.errors[0].instancePath + validate.errors[0].keyword, h);
  }
}
emit("ajv " + valid + " " + errors + " " + hex(h));
