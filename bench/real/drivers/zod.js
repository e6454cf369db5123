// zod: declare a schema (objects, arrays, unions, refinements, transforms) and
// safeParse generated documents, valid and invalid.
var z = zod.z;
var Address = z.object({ street: z.string().min(1), zip: z.string().regex(/^[0-9]{5}$/), country: z.enum(["DE", "FR", "US"]) });
var User = z.object({
  id: z.number().int().nonnegative(),
  name: z.string().min(2).max(60),
  email: z.string().regex(/^[a-z]+@[a-z]+\.(com|org)$/),
  age: z.number().int().min(0).max(150).optional(),
  tags: z.array(z.string()).max(8),
  address: Address,
  role: z.union([z.literal("admin"), z.literal("user"), z.object({ custom: z.string() })]),
  scores: z.array(z.number().positive()).transform(function (s) { return s.reduce(function (a, b) { return a + b; }, 0); })
}).strict();
var random = new Random(21);
var valid = 0, issues = 0, total = 0, h = 0x811c9dc5;
for (var i = 0; i < 5000; i++) {
  var doc = userDocument(random, i, ["admin", "user", { custom: "x" }, "guest"]);
  var result = User.safeParse(doc);
  if (result.success) { valid++; total += result.data.scores; }
  else {
    issues += result.error.issues.length;
    h = hash(result.error.issues[0].path.join(".") + result.error.issues[0].code, h);
  }
}
emit("zod " + valid + " " + issues + " " + total + " " + hex(h));
