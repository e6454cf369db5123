# fanout-4.js in Monty's Python: look up four products at once and pick the best value
# among those in stock.
import asyncio
import math

products = await asyncio.gather(*[getProduct({"sku": sku}) for sku in input["skus"]])
ranked = sorted(
    [
        {
            "sku": p["sku"],
            "name": p["name"],
            "price": f"{p['price']['amount']:.2f} {p['price']['currency']}",
            "value": math.floor(p["rating"] * (p["reviews"] + 1) / p["price"]["amount"] * 1000 + 0.5) / 1000,
        }
        for p in products
        if p["stock"] > 0
    ],
    key=lambda p: (-p["value"], p["sku"]),
)
{
    "best": ranked[0] if len(ranked) > 0 else None,
    "ranked": [p["sku"] for p in ranked],
    "outOfStock": [p["name"] for p in products if p["stock"] == 0],
}
