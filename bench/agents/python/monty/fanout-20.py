# fanout-20.js in Monty's Python: the recent orders of 20 accounts, fetched in parallel,
# reduced to spend per account and counts per status.
import asyncio
import math

ids = input["userIds"]
lists = await asyncio.gather(*[getOrders({"userId": i, "limit": 8}) for i in ids])
by_status = {}
accounts = []
for i, orders in enumerate(lists):
    spent = 0
    items = 0
    for o in orders:
        by_status[o["status"]] = by_status.get(o["status"], 0) + 1
        if o["status"] == "refunded" or o["status"] == "cancelled":
            continue
        spent += o["total"]
        items += sum(it["qty"] for it in o["items"])
    last = max(o["placedAt"] for o in orders)
    accounts.append(
        {"userId": ids[i], "orders": len(orders), "items": items, "spent": math.floor(spent * 100 + 0.5) / 100, "lastOrder": last[:10]}
    )
accounts.sort(key=lambda a: (-a["spent"], a["userId"]))
{
    "top": accounts[:5],
    "quiet": [a["userId"] for a in accounts if a["items"] < 25],
    "byStatus": by_status,
    "total": math.floor(sum(a["spent"] for a in accounts) * 100 + 0.5) / 100,
}
