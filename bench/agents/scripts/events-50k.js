// 50,000 log events: in a time window, per service the request count, error rate and
// latency percentiles (sorting the latencies), and the most frequent error messages.
const events = await tools.listEvents({ count: 50000 });
const from = input.from;
const to = input.to;
const services = {};
const errors = new Map();
for (const e of events) {
  if (e.ts < from || e.ts >= to) continue;
  if (!services[e.service]) services[e.service] = { service: e.service, requests: 0, errors: 0, warnings: 0, latencies: [] };
  const s = services[e.service];
  s.requests++;
  s.latencies.push(e.latencyMs);
  if (e.level === "error") {
    s.errors++;
    const key = `${e.service}: ${e.message}`;
    errors.set(key, (errors.get(key) || 0) + 1);
  } else if (e.level === "warn") {
    s.warnings++;
  }
}
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const summary = Object.values(services)
  .map((s) => {
    const sorted = s.latencies.sort((a, b) => a - b);
    return {
      service: s.service,
      requests: s.requests,
      errorRate: Math.round((s.errors / s.requests) * 10000) / 100,
      warnings: s.warnings,
      p50: pct(sorted, 50),
      p95: pct(sorted, 95),
      p99: pct(sorted, 99),
      max: sorted[sorted.length - 1],
    };
  })
  .sort((a, b) => b.errorRate - a.errorRate || (a.service < b.service ? -1 : 1));
const topErrors = [...errors.entries()]
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
  .slice(0, 8)
  .map(([message, count]) => ({ message, count }));
const affectedUsers = new Set(events.filter((e) => e.level === "error" && e.userId !== null && e.ts >= from && e.ts < to).map((e) => e.userId)).size;
return { window: [from, to], summary, topErrors, affectedUsers };
