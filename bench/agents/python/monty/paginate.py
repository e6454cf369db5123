# paginate.js in Monty's Python: page through 5,000 items 250 at a time (20 calls, each
# waiting for the cursor of the one before), keeping running totals and the largest items.
import math

cursor = None
pages = 0
totals = {}
owners = set()
top = []
while True:
    page = await listPage({"cursor": cursor, "size": input["pageSize"], "total": input["total"]})
    pages += 1
    for item in page["items"]:
        if item["status"] not in totals:
            totals[item["status"]] = {"count": 0, "amount": 0}
        t = totals[item["status"]]
        t["count"] += 1
        t["amount"] = math.floor((t["amount"] + item["amount"]) * 100 + 0.5) / 100
        owners.add(item["owner"])
    top = sorted(top + [i for i in page["items"] if i["status"] != "cancelled"], key=lambda i: (-i["amount"], i["id"]))[:10]
    cursor = page["nextCursor"]
    if not cursor:
        break
{"pages": pages, "totals": totals, "owners": len(owners), "top": [{"id": i["id"], "title": i["title"], "amount": i["amount"]} for i in top]}
