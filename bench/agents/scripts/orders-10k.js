// 10,000 orders and today's exchange rates: revenue per month in one currency, split by
// status, with month-over-month growth and the best selling SKUs.
const [orders, fx] = await Promise.all([
  tools.listOrders({ count: 10000, users: 2000 }),
  tools.getExchangeRates({ base: input.currency }),
]);
const toBase = (amount, currency) => amount / fx.rates[currency];
const months = {};
const skus = new Map();
for (const o of orders) {
  if (o.status === "cancelled") continue;
  const month = o.placedAt.slice(0, 7);
  const m = (months[month] ??= { month, orders: 0, revenue: 0, refunded: 0 });
  const amount = toBase(o.total, o.currency);
  m.orders += 1;
  if (o.status === "refunded") m.refunded += amount;
  else m.revenue += amount;
  for (const it of o.items) skus.set(it.sku, (skus.get(it.sku) || 0) + it.qty);
}
const series = Object.values(months).sort((a, b) => (a.month < b.month ? -1 : 1));
const round = (x) => Math.round(x * 100) / 100;
const report = series.map((m, i) => ({
  month: m.month,
  orders: m.orders,
  revenue: round(m.revenue),
  refunded: round(m.refunded),
  growth: i === 0 ? null : round(((m.revenue - series[i - 1].revenue) / series[i - 1].revenue) * 100),
}));
const bestSellers = [...skus].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 10);
return { currency: fx.base, report, bestSellers, distinctSkus: skus.size };
