// Fan out over 100 tool calls: 100 product look-ups in parallel, grouped by category
// with stock, price range and the best rated product of each.
const products = await Promise.all(input.skus.map((sku) => tools.getProduct({ sku })));
const groups = new Map();
for (const p of products) {
  if (!groups.has(p.category)) groups.set(p.category, []);
  groups.get(p.category).push(p);
}
const categories = [...groups.entries()]
  .map(([category, list]) => {
    const prices = list.map((p) => p.price.amount).sort((a, b) => a - b);
    const best = list.reduce((a, b) => (b.rating > a.rating || (b.rating === a.rating && b.reviews > a.reviews) ? b : a));
    return {
      category,
      products: list.length,
      stock: list.reduce((s, p) => s + p.stock, 0),
      soldOut: list.filter((p) => p.stock === 0).length,
      minPrice: prices[0],
      medianPrice: prices[Math.floor(prices.length / 2)],
      maxPrice: prices[prices.length - 1],
      best: { sku: best.sku, name: best.name, rating: best.rating },
    };
  })
  .sort((a, b) => b.products - a.products || (a.category < b.category ? -1 : 1));
const heavy = products.filter((p) => p.dimensions.weightKg > 15).map((p) => p.sku).sort();
return { categories, heavy, looked: products.length };
