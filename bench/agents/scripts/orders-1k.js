// Filter, sort, group and reduce 1,000 orders: paid or shipped orders above a threshold,
// the ten largest, revenue per currency and the busiest customers.
const orders = await tools.listOrders({ count: 1000, users: 200 });
const live = orders.filter((o) => (o.status === "paid" || o.status === "shipped") && o.total >= input.minTotal);
const largest = [...live]
  .sort((a, b) => b.total - a.total || (a.id < b.id ? -1 : 1))
  .slice(0, 10)
  .map((o) => ({ id: o.id, total: o.total, currency: o.currency, items: o.items.length }));
const revenue = {};
for (const o of live) revenue[o.currency] = Math.round(((revenue[o.currency] || 0) + o.total) * 100) / 100;
const perCustomer = live.reduce((acc, o) => {
  acc[o.userId] = (acc[o.userId] || 0) + 1;
  return acc;
}, {});
const busiest = Object.entries(perCustomer)
  .sort((a, b) => b[1] - a[1] || Number(a[0]) - Number(b[0]))
  .slice(0, 5)
  .map(([userId, count]) => ({ userId: Number(userId), count }));
const express = live.filter((o) => o.shipping.method === "express").length;
return { matched: live.length, largest, revenue, busiest, expressShare: Math.round((express / live.length) * 1000) / 1000 };
