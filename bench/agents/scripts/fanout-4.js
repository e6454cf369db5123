// Fan out over 4 tool calls: look up four products at once and pick the best value
// among those in stock.
const products = await Promise.all(input.skus.map((sku) => tools.getProduct({ sku })));
const inStock = products.filter((p) => p.stock > 0);
const ranked = inStock
  .map((p) => ({
    sku: p.sku,
    name: p.name,
    price: `${p.price.amount.toFixed(2)} ${p.price.currency}`,
    value: Math.round(((p.rating * (p.reviews + 1)) / p.price.amount) * 1000) / 1000,
  }))
  .sort((a, b) => b.value - a.value || (a.sku < b.sku ? -1 : 1));
return {
  best: ranked.length > 0 ? ranked[0] : null,
  ranked: ranked.map((p) => p.sku),
  outOfStock: products.filter((p) => p.stock === 0).map((p) => p.name),
};
