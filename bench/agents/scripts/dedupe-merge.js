// De-duplication across two systems: 3,000 CRM contacts and 3,000 billing customers,
// merged by e-mail address (trimmed, lower-cased); the most recent record wins each
// field, tags are united, phone numbers compared by their digits.
const [crm, billing] = await Promise.all([
  tools.crm.contacts({ count: 3000 }),
  tools.billing.customers({ count: 3000 }),
]);
const digits = (phone) => phone.replace(/\D/g, "").slice(-10);
const merged = new Map();
let duplicates = 0;
let conflicts = 0;
const add = (source, r) => {
  const key = r.email.trim().toLowerCase();
  const name = (r.name || r.fullName).trim().replace(/\s+/g, " ");
  const prev = merged.get(key);
  if (!prev) {
    merged.set(key, { email: key, name, phone: digits(r.phone), sources: [source], ids: [r.id], tags: new Set(r.tags), updatedAt: r.updatedAt, plan: r.plan || null });
    return;
  }
  duplicates++;
  if (prev.phone !== digits(r.phone)) conflicts++;
  if (!prev.sources.includes(source)) prev.sources.push(source);
  prev.ids.push(r.id);
  for (const t of r.tags) prev.tags.add(t);
  if (r.updatedAt > prev.updatedAt) {
    prev.updatedAt = r.updatedAt;
    prev.name = name;
  }
  if (r.plan) prev.plan = r.plan;
};
for (const r of crm) add("crm", r);
for (const r of billing) add("billing", r);
const people = [...merged.values()];
const both = people.filter((p) => p.sources.length === 2);
const tagCounts = {};
for (const p of people) for (const t of p.tags) tagCounts[t] = (tagCounts[t] || 0) + 1;
const byPlan = {};
for (const p of both) byPlan[p.plan] = (byPlan[p.plan] || 0) + 1;
return {
  records: crm.length + billing.length,
  people: people.length,
  duplicates,
  conflicts,
  inBoth: both.length,
  onlyCrm: people.filter((p) => p.sources.length === 1 && p.sources[0] === "crm").length,
  byPlan,
  tagCounts,
  sample: people
    .filter((p) => p.ids.length > 2)
    .sort((a, b) => (a.email < b.email ? -1 : a.email > b.email ? 1 : 0))
    .slice(0, 5)
    .map((p) => ({ ...p, tags: [...p.tags].sort() })),
};
