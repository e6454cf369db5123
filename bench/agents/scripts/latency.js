// The latency case: three small tool calls (a user, then their latest orders and the
// weather where they live, in parallel) and a short answer.
const user = await tools.getUser({ id: input.userId });
const [orders, weather] = await Promise.all([
  tools.getOrders({ userId: user.id, limit: 3 }),
  tools.getWeather({ city: user.address.city }),
]);
const open = orders.filter((o) => o.status !== "delivered" && o.status !== "cancelled");
return {
  name: user.name,
  city: weather.city,
  weather: `${weather.condition}, ${weather.tempC}°C`,
  openOrders: open.map((o) => ({ id: o.id, total: o.total, currency: o.currency })),
  spent: Math.round(orders.reduce((sum, o) => sum + o.total, 0) * 100) / 100,
};
