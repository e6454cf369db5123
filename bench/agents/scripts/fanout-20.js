// Fan out over 20 tool calls: the recent orders of 20 accounts, fetched in parallel,
// reduced to spend per account and counts per status.
const ids = input.userIds;
const lists = await Promise.all(ids.map((id) => tools.getOrders({ userId: id, limit: 8 })));
const byStatus = {};
const accounts = lists.map((orders, i) => {
  let spent = 0;
  let items = 0;
  for (const o of orders) {
    byStatus[o.status] = (byStatus[o.status] || 0) + 1;
    if (o.status === "refunded" || o.status === "cancelled") continue;
    spent += o.total;
    items += o.items.reduce((n, it) => n + it.qty, 0);
  }
  const last = orders.map((o) => o.placedAt).sort().pop();
  return { userId: ids[i], orders: orders.length, items, spent: Math.round(spent * 100) / 100, lastOrder: last.slice(0, 10) };
});
accounts.sort((a, b) => b.spent - a.spent || a.userId - b.userId);
return {
  top: accounts.slice(0, 5),
  quiet: accounts.filter((a) => a.items < 25).map((a) => a.userId),
  byStatus,
  total: Math.round(accounts.reduce((s, a) => s + a.spent, 0) * 100) / 100,
};
