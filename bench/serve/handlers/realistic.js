// The realistic handler: route on the URL, parse a 1 KB JSON order, transform it, respond
// with JSON. Bun and Deno serve this same module; node.mjs is its twin over node:http.
function summarize(order) {
  const items = order.items.map((item) => ({
    sku: item.sku.toUpperCase(),
    total: Math.round(item.price * item.quantity * 100) / 100,
  }));
  const total = items.reduce((sum, item) => sum + item.total, 0);
  return {
    id: order.id,
    customer: order.customer.name,
    items,
    total: Math.round(total * 100) / 100,
    tags: order.tags.filter((tag) => tag.length > 3).sort(),
  };
}

export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (request.method === "POST" && url.pathname === "/api/orders") {
      return Response.json(summarize(await request.json()));
    }
    if (url.pathname === "/health") return Response.json({ ok: true });
    return new Response("not found", { status: 404 });
  },
};

export { summarize };
