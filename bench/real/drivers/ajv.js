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
  var doc = {
    id: random.int(20) === 0 ? -1 : i,
    name: words(random, 1 + random.int(3)),
    email: random.pick(WORDS) + "@" + random.pick(WORDS) + (random.int(10) ? ".com" : ".net"),
    age: random.int(170),
    tags: [random.pick(WORDS), random.pick(WORDS)],
    address: { street: words(random, 2), zip: String(10000 + random.int(95000)), country: random.pick(["DE", "FR", "US", "UK"]) },
    scores: [random.int(10), random.int(10)]
  };
  if (random.int(30) === 0) doc.unexpected = true;
  if (validate(doc)) valid++;
  else {
    errors += validate.errors.length;
    h = hash(validate.errors[0].instancePath + validate.errors[0].keyword, h);
  }
}
emit("ajv " + valid + " " + errors + " " + hex(h));
