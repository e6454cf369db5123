"""An agent's script, as a model would write it, run in Kiln with two tools.

Run where kiln-sandbox is installed: python agent.py
"""

import asyncio
import json

import kiln

# The host's tools: plain async functions (here over made-up data).
customers = [
    {"id": i + 1, "name": f"Customer {i + 1}", "region": ["north", "south", "east", "west"][i % 4]}
    for i in range(500)
]


async def list_customers(query):
    return [c for c in customers if c["region"] == query["region"]]


async def get_orders(customer_id):
    return [
        {"id": f"{customer_id}-{k}", "amount": ((customer_id * 37 + k * 11) % 200) + 0.5}
        for k in range(customer_id % 5)
    ]


tools = {"listCustomers": list_customers, "getOrders": get_orders}

# What the model wrote: fan out over the tools, reduce the data, return only the answer.
script = """
  const northern = await tools.listCustomers({ region: input.region });
  const orders = await Promise.all(northern.map((c) => tools.getOrders(c.id)));
  const totals = northern.map((c, i) => ({ name: c.name, total: orders[i].reduce((s, o) => s + o.amount, 0) }));
  totals.sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  console.log(`${northern.length} customers, ${orders.flat().length} orders`);
  return { top: totals.slice(0, 3), revenue: Math.round(totals.reduce((s, t) => s + t.total, 0) * 100) / 100 };
"""


async def main():
    result = await kiln.run_async(
        script,
        capabilities={"tools": tools},
        inputs={"input": {"region": "north"}},
        limits=kiln.Limits(fuel=10_000_000, heap_bytes=32 << 20, host_calls=200),
        console=lambda level, line: print(f"[guest] {line}"),
    )
    print(json.dumps(result, indent=2))


asyncio.run(main())
