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
  var doc = {
    id: random.int(20) === 0 ? -1 : i,
    name: words(random, 1 + random.int(3)),
    email: random.pick(WORDS) + "@" + random.pick(WORDS) + (random.int(10) ? ".com" : ".net"),
    age: random.int(170),
    tags: [random.pick(WORDS), random.pick(WORDS)],
    address: { street: words(random, 2), zip: String(10000 + random.int(95000)), country: random.pick(["DE", "FR", "US", "UK"]) },
    role: random.pick(["admin", "user", { custom: "x" }, "guest"]),
    scores: [random.int(10), random.int(10)]
  };
  if (random.int(30) === 0) doc.unexpected = true;
  var result = User.safeParse(doc);
  if (result.success) { valid++; total += result.data.scores; }
  else {
    issues += result.error.issues.length;
    h = hash(result.error.issues[0].path.join(".") + result.error.issues[0].code, h);
  }
}
emit("zod " + valid + " " + issues + " " + total + " " + hex(h));
