// Map and Set aggregation: join 10,000 orders to 2,000 users through a Map index; per
// country the revenue, buyers and distinct SKUs (Sets), signup cohorts and repeat buyers.
const [users, orders] = await Promise.all([
  tools.listUsers({ count: 2000 }),
  tools.listOrders({ count: 10000, users: 2000 }),
]);
const byId = new Map(users.map((u) => [u.id, u]));
const countries = new Map();
const buyers = new Map();
for (const o of orders) {
  if (o.status === "cancelled" || o.status === "refunded") continue;
  const u = byId.get(o.userId);
  if (!u) continue;
  let c = countries.get(u.address.country);
  if (!c) {
    c = { revenue: 0, orders: 0, buyers: new Set(), skus: new Set(), plans: new Map() };
    countries.set(u.address.country, c);
  }
  c.revenue += o.total;
  c.orders++;
  c.buyers.add(u.id);
  for (const it of o.items) c.skus.add(it.sku);
  c.plans.set(u.plan, (c.plans.get(u.plan) || 0) + 1);
  buyers.set(u.id, (buyers.get(u.id) || 0) + 1);
}
const table = [...countries]
  .map(([country, c]) => ({
    country,
    revenue: Math.round(c.revenue),
    orders: c.orders,
    buyers: c.buyers.size,
    skus: c.skus.size,
    topPlan: [...c.plans].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0][0],
  }))
  .sort((a, b) => b.revenue - a.revenue);
const cohorts = {};
for (const u of users) {
  const month = u.createdAt.slice(0, 7);
  if (!cohorts[month]) cohorts[month] = { users: 0, buyers: 0 };
  cohorts[month].users++;
  if (buyers.has(u.id)) cohorts[month].buyers++;
}
const repeat = [...buyers.values()].filter((n) => n >= 3).length;
const never = users.filter((u) => !buyers.has(u.id));
const tagSets = new Map();
for (const u of never) for (const t of u.tags) tagSets.set(t, (tagSets.get(t) || new Set()).add(u.plan));
return {
  table,
  cohorts: Object.keys(cohorts).sort().map((m) => [m, cohorts[m].users, cohorts[m].buyers]),
  repeatBuyers: repeat,
  neverBought: never.length,
  neverTags: [...tagSets].map(([t, plans]) => [t, [...plans].sort()]).sort((a, b) => (a[0] < b[0] ? -1 : 1)),
};
