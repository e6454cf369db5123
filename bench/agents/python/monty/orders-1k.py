# orders-1k.js in Monty's Python: paid or shipped orders above a threshold, the ten
# largest, revenue per currency and the busiest customers.
import math

orders = await listOrders({"count": 1000, "users": 200})
live = [o for o in orders if (o["status"] == "paid" or o["status"] == "shipped") and o["total"] >= input["minTotal"]]
largest = [
    {"id": o["id"], "total": o["total"], "currency": o["currency"], "items": len(o["items"])}
    for o in sorted(live, key=lambda o: (-o["total"], o["id"]))[:10]
]
revenue = {}
for o in live:
    revenue[o["currency"]] = math.floor((revenue.get(o["currency"], 0) + o["total"]) * 100 + 0.5) / 100
per_customer = {}
for o in live:
    per_customer[o["userId"]] = per_customer.get(o["userId"], 0) + 1
busiest = [{"userId": u, "count": n} for u, n in sorted(per_customer.items(), key=lambda e: (-e[1], e[0]))[:5]]
express = len([o for o in live if o["shipping"]["method"] == "express"])
{
    "matched": len(live),
    "largest": largest,
    "revenue": revenue,
    "busiest": busiest,
    "expressShare": math.floor(express / len(live) * 1000 + 0.5) / 1000,
}
