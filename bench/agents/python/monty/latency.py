# latency.js in Monty's Python: three small tool calls (a user, then their latest orders
# and the weather where they live, in parallel) and a short answer.
import asyncio
import math

user = await getUser({"id": input["userId"]})
orders, weather = await asyncio.gather(
    getOrders({"userId": user["id"], "limit": 3}),
    getWeather({"city": user["address"]["city"]}),
)
open_orders = [o for o in orders if o["status"] != "delivered" and o["status"] != "cancelled"]
{
    "name": user["name"],
    "city": weather["city"],
    "weather": f"{weather['condition']}, {weather['tempC']}°C",
    "openOrders": [{"id": o["id"], "total": o["total"], "currency": o["currency"]} for o in open_orders],
    "spent": math.floor(sum(o["total"] for o in orders) * 100 + 0.5) / 100,
}
