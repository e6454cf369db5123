// An agent's script, as a model would write it, run in Kiln with two tools.
// Run from a project that installed kiln-sandbox: node agent.mjs
import { run } from 'kiln-sandbox';

// The host's tools: plain async functions (here over made-up data).
const customers = Array.from({ length: 500 }, (_, i) => ({
  id: i + 1,
  name: `Customer ${i + 1}`,
  region: ['north', 'south', 'east', 'west'][i % 4],
}));
const tools = {
  async listCustomers({ region }) {
    return customers.filter((c) => c.region === region);
  },
  async getOrders(customerId) {
    return Array.from({ length: customerId % 5 }, (_, k) => ({ id: `${customerId}-${k}`, amount: ((customerId * 37 + k * 11) % 200) + 0.5 }));
  },
};

// What the model wrote: fan out over the tools, reduce the data, return only the answer.
const script = `
  const northern = await tools.listCustomers({ region: input.region });
  const orders = await Promise.all(northern.map((c) => tools.getOrders(c.id)));
  const totals = northern.map((c, i) => ({ name: c.name, total: orders[i].reduce((s, o) => s + o.amount, 0) }));
  totals.sort((a, b) => b.total - a.total || a.name.localeCompare(b.name));
  console.log(\`\${northern.length} customers, \${orders.flat().length} orders\`);
  return { top: totals.slice(0, 3), revenue: Math.round(totals.reduce((s, t) => s + t.total, 0) * 100) / 100 };
`;

const result = await run(script, {
  capabilities: { tools },
  inputs: { input: { region: 'north' } },
  limits: { fuel: 10_000_000, heapBytes: 32 << 20, hostCalls: 200 },
  console: { log: (line) => console.log(`[guest] ${line}`) },
});
console.log(JSON.stringify(result, null, 2));
