// Sequential tool calls: page through 5,000 items 250 at a time (20 calls, each waiting
// for the cursor of the one before), keeping running totals and the largest items.
let cursor = null;
let pages = 0;
const totals = {};
const owners = new Set();
let top = [];
do {
  const page = await tools.listPage({ cursor, size: input.pageSize, total: input.total });
  pages++;
  for (const item of page.items) {
    if (!totals[item.status]) totals[item.status] = { count: 0, amount: 0 };
    totals[item.status].count++;
    totals[item.status].amount = Math.round((totals[item.status].amount + item.amount) * 100) / 100;
    owners.add(item.owner);
  }
  top = top
    .concat(page.items.filter((i) => i.status !== "cancelled"))
    .sort((a, b) => b.amount - a.amount || a.id - b.id)
    .slice(0, 10);
  cursor = page.nextCursor;
} while (cursor);
return { pages, totals, owners: owners.size, top: top.map((i) => ({ id: i.id, title: i.title, amount: i.amount })) };
