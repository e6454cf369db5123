// The host tools the agent scripts call: deterministic async functions whose data comes
// from a seeded generator, sized by their arguments. A tool's answer depends only on its
// name and its arguments (the seed is an FNV-1a hash of both), so every lane, every run
// and every machine sees the same data.
//
// Each answer is generated once per process and kept as JSON text; every call returns a
// fresh `JSON.parse` of it, as a tool reading an HTTP API would. That parse is host time
// (the runner times it apart), the generation is not (the warm-up pays it).
//
// Names are dotted, as a guest sees them: `tools.getUser` is `tools.getUser(...)` in a
// script. `tools(names)` returns the functions for a script's manifest.

// A 32-bit generator (mulberry32), as bench/real/prelude.js.
class Random {
  constructor(seed) {
    this.state = seed >>> 0;
  }
  next() {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n) {
    return Math.floor(this.next() * n);
  }
  pick(list) {
    return list[this.int(list.length)];
  }
  chance(p) {
    return this.next() < p;
  }
  // A price in cents turned into a number with two decimals.
  money(min, max) {
    return (min * 100 + this.int((max - min) * 100)) / 100;
  }
}

function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const FIRST = ["Ada", "Alan", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Edsger", "José", "Zoë", "Łukasz", "Søren",
  "Renée", "Chloé", "François", "Ana", "Björn", "Émilie", "Mikko", "Ngozi", "Priya", "Hiroshi", "Olga", "Tomás", "Aoife",
  "Dmitri", "Fatima", "Giulia", "Hana", "Ingrid"];
const LAST = ["Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Thompson", "Liskov", "Dijkstra", "García", "Müller",
  "Kowalski", "Kierkegaard", "Dubois", "Lefèvre", "Nørgaard", "O'Brien", "Okafor", "Patel", "Tanaka", "Ivanova", "Núñez",
  "Rossi", "Schröder", "Virtanen", "Yılmaz", "Zhang", "Björk", "Côté", "Doyle", "Ekström"];
const CITIES = ["Berlin", "Paris", "Lisbon", "Oslo", "Kraków", "Zürich", "Dublin", "Lagos", "Pune", "Osaka", "Toronto",
  "São Paulo", "Austin", "Helsinki", "Seville", "Málaga"];
const COUNTRIES = { Berlin: "DE", Paris: "FR", Lisbon: "PT", Oslo: "NO", "Kraków": "PL", "Zürich": "CH", Dublin: "IE",
  Lagos: "NG", Pune: "IN", Osaka: "JP", Toronto: "CA", "São Paulo": "BR", Austin: "US", Helsinki: "FI", Seville: "ES",
  "Málaga": "ES" };
const DOMAINS = ["example.com", "mail.test", "corp.example", "acme.test", "inbox.example"];
const PLANS = ["free", "pro", "team", "enterprise"];
const TAGS = ["vip", "beta", "churn-risk", "newsletter", "partner", "trial", "annual", "monthly", "edu", "nonprofit",
  "reseller", "internal"];
const CATEGORIES = ["books", "garden", "kitchen", "office", "outdoor", "toys", "audio", "lighting"];
const ADJ = ["Compact", "Deluxe", "Eco", "Smart", "Classic", "Ultra", "Mini", "Pro", "Rustic", "Modern"];
const NOUN = ["Kettle", "Lamp", "Notebook", "Speaker", "Planter", "Tent", "Puzzle", "Chair", "Grinder", "Lantern",
  "Backpack", "Desk"];
const STATUSES = ["pending", "paid", "shipped", "delivered", "refunded", "cancelled"];
const CURRENCIES = ["EUR", "USD", "GBP", "CHF"];
const CONDITIONS = ["sunny", "cloudy", "rain", "snow", "fog", "wind"];
const SERVICES = ["api", "auth", "billing", "search", "worker", "gateway", "mailer", "storage"];
const LEVELS = ["debug", "info", "info", "info", "warn", "error"];
const MESSAGES = ["timeout talking to upstream", "connection reset by peer", "rate limit exceeded", "invalid token",
  "cache miss", "slow query", "retrying request", "payment declined", "disk quota near limit", "request completed"];
const WORDS = ("the a of and to in is that for on with as by at from this be are was it an or which not have has " +
  "kiln engine sandbox budget capability snapshot resume suspend tool agent script heap fuel limit value object " +
  "array string number record order invoice customer report quarter revenue latency error retry deploy release " +
  "schema migration index query cache queue worker token shard region cluster replica backup restore audit " +
  "policy access review incident postmortem timeline owner action item metric alert dashboard").split(" ");
const TEAMS = ["platform", "growth", "infra", "data", "mobile", "web"];
const LABELS = [["bug", "d73a4a"], ["feature", "a2eeef"], ["docs", "0075ca"], ["perf", "fbca04"], ["security", "b60205"],
  ["starter", "7057ff"], ["wontfix", "ffffff"], ["question", "d876e3"]];

// Dates as ISO strings: `day` days after 2024-01-01 plus a time of day.
const EPOCH = Date.UTC(2024, 0, 1);
function isoDate(day, seconds) {
  return new Date(EPOCH + day * 86400000 + seconds * 1000).toISOString();
}

function personName(r) {
  return `${r.pick(FIRST)} ${r.pick(LAST)}`;
}
function asciiLocal(name) {
  return name.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z]+/g, ".").replace(/^\.+|\.+$/g, "");
}
function tagsOf(r, max) {
  const out = [];
  const n = r.int(max + 1);
  for (let i = 0; i < n; i++) {
    const t = r.pick(TAGS);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

function user(r, id) {
  const name = personName(r);
  const city = r.pick(CITIES);
  return {
    id,
    name,
    email: `${asciiLocal(name)}${id}@${r.pick(DOMAINS)}`,
    age: 18 + r.int(60),
    plan: r.pick(PLANS),
    createdAt: isoDate(r.int(600), r.int(86400)),
    tags: tagsOf(r, 3),
    address: { street: `${1 + r.int(200)} ${r.pick(LAST)} Street`, city, country: COUNTRIES[city], zip: String(10000 + r.int(89999)) },
    preferences: { newsletter: r.chance(0.4), locale: r.pick(["en", "de", "fr", "pt", "ja"]) },
  };
}

function sku(r) {
  return `SKU-${1000 + r.int(9000)}`;
}

function order(r, n, users) {
  const items = [];
  const count = 1 + r.int(4);
  let total = 0;
  for (let i = 0; i < count; i++) {
    const qty = 1 + r.int(3);
    const price = r.money(2, 250);
    items.push({ sku: sku(r), qty, price });
    total += qty * price;
  }
  return {
    id: `ord_${String(n).padStart(6, "0")}`,
    userId: r.int(users),
    status: r.pick(STATUSES),
    currency: r.pick(CURRENCIES),
    total: Math.round(total * 100) / 100,
    items,
    placedAt: isoDate(r.int(365), r.int(86400)),
    shipping: { method: r.pick(["standard", "express", "pickup"]), country: COUNTRIES[r.pick(CITIES)] },
  };
}

function product(r, code) {
  return {
    sku: code,
    name: `${r.pick(ADJ)} ${r.pick(NOUN)}`,
    category: r.pick(CATEGORIES),
    price: { amount: r.money(3, 400), currency: r.pick(CURRENCIES) },
    stock: r.chance(0.2) ? 0 : r.int(500),
    rating: (10 + r.int(41)) / 10,
    reviews: r.int(2000),
    updatedAt: isoDate(300 + r.int(60), r.int(86400)),
    dimensions: { widthCm: 5 + r.int(80), heightCm: 5 + r.int(80), weightKg: r.money(0, 20) },
  };
}

function sentence(r, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(r.pick(WORDS));
  out[0] = out[0][0].toUpperCase() + out[0].slice(1);
  return out.join(" ") + ".";
}

// Text with things a regex finds: ticket references, e-mail addresses, ISO dates,
// amounts and URLs, sprinkled among sentences.
function documentText(r, words) {
  const parts = [];
  let left = words;
  while (left > 0) {
    const n = Math.min(left, 6 + r.int(14));
    let s = sentence(r, n);
    const k = r.int(12);
    if (k === 0) s += ` See ${r.pick(["KILN", "OPS", "SEC", "DATA"])}-${1 + r.int(4000)}.`;
    else if (k === 1) s += ` Contact ${asciiLocal(personName(r))}@${r.pick(DOMAINS)} for details.`;
    else if (k === 2) s += ` Due ${isoDate(r.int(400), 0).slice(0, 10)}.`;
    else if (k === 3) s += ` Cost: $${(1 + r.int(9000)).toLocaleString("en-US")}.${String(r.int(100)).padStart(2, "0")}.`;
    else if (k === 4) s += ` https://docs.example.com/${r.pick(WORDS)}/${r.int(100)}`;
    parts.push(s);
    left -= n;
  }
  return parts.join(" ");
}

function doc(r, id, words) {
  return {
    id,
    title: sentence(r, 3 + r.int(5)).slice(0, -1),
    author: { name: personName(r), team: r.pick(TEAMS) },
    updatedAt: isoDate(r.int(365), r.int(86400)),
    score: r.int(1000) / 1000,
    body: documentText(r, words),
  };
}

// A messy person record as a CRM export has them: padded, mixed case, accents either
// composed (NFC) or decomposed (NFD), doubled spaces.
function messy(r, text) {
  let s = r.chance(0.3) ? text.normalize("NFD") : text;
  const k = r.int(4);
  if (k === 0) s = s.toUpperCase();
  else if (k === 1) s = s.toLowerCase();
  if (r.chance(0.3)) s = s.replace(" ", "  ");
  if (r.chance(0.4)) s = `  ${s} `;
  return s;
}
// A person as two systems hold them: `person` (seeded by who it is) gives the facts,
// `r` (the system's own stream) the formatting and the system's own fields.
function contact(person, r, id) {
  const name = personName(person);
  const email = `${asciiLocal(name)}${person.int(400)}@${person.pick(DOMAINS)}`;
  const company = `${person.pick(LAST)} ${person.pick(["GmbH", "S.A.", "Ltd", "& Söhne", "AB", "Oy", "Inc."])}`;
  const digits = String(1000000000 + person.int(899999999));
  const phone = r.chance(0.5) ? `+1 (${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}` : `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6)}`;
  return {
    id,
    name: messy(r, name),
    email: r.chance(0.3) ? ` ${email.toUpperCase()}` : email,
    phone,
    company: messy(r, company),
    tags: tagsOf(r, 3),
    updatedAt: isoDate(r.int(365), r.int(86400)),
  };
}
// Person i; every seventh record is the person before it again (a duplicate).
function person(i) {
  return new Random(fnv1a(`person:${i % 7 === 3 ? i - 1 : i}`));
}

function event(r, n) {
  const level = r.pick(LEVELS);
  return {
    ts: isoDate(r.int(30), r.int(86400)),
    level,
    service: r.pick(SERVICES),
    message: level === "error" || level === "warn" ? r.pick(MESSAGES.slice(0, 9)) : r.pick(MESSAGES.slice(5)),
    userId: r.chance(0.8) ? r.int(5000) : null,
    latencyMs: r.chance(0.05) ? 1000 + r.int(9000) : 5 + r.int(400),
    requestId: `req-${n.toString(36)}`,
  };
}

function repo(r, i) {
  const owner = r.pick(LAST).toLowerCase().replace(/[^a-z]/g, "") + r.int(20);
  const tickets = [];
  const n = r.int(12);
  for (let k = 0; k < n; k++) {
    const labels = [];
    for (let j = r.int(3); j > 0; j--) {
      const [name, color] = r.pick(LABELS);
      if (!labels.some((l) => l.name === name)) labels.push({ name, color });
    }
    tickets.push({
      number: 1 + k * 3 + r.int(3),
      title: sentence(r, 4 + r.int(6)).slice(0, -1),
      state: r.chance(0.6) ? "open" : "closed",
      labels,
      assignees: r.chance(0.5) ? [{ login: r.pick(FIRST).toLowerCase() }] : [],
      created_at: isoDate(r.int(365), r.int(86400)),
      comments: r.int(30),
      reactions: { "+1": r.int(20), "-1": r.int(3), heart: r.int(5) },
    });
  }
  return {
    id: 100000 + i,
    name: `${r.pick(WORDS)}-${r.pick(WORDS)}-${i}`,
    full_name: null,
    owner: { login: owner, type: r.chance(0.3) ? "Organization" : "User", site_admin: false },
    private: r.chance(0.1),
    stats: { stars: r.int(5000), forks: r.int(800), watchers: r.int(300) },
    topics: tagsOf(r, 4),
    license: r.chance(0.8) ? { key: r.pick(["mit", "apache-2.0", "gpl-3.0", "bsd-3-clause"]) } : null,
    pushed_at: isoDate(r.int(365), r.int(86400)),
    tickets,
  };
}

// The generators: arguments in, a JSON-able value out.
const GENERATORS = {
  "tools.getUser": (r, { id }) => user(r, id),
  "tools.getOrders": (r, { userId, limit = 5 }) =>
    Array.from({ length: limit }, (_, i) => ({ ...order(r, userId * 100 + i, 1), userId })),
  "tools.getWeather": (r, { city }) => ({
    city,
    tempC: -5 + r.int(40),
    condition: r.pick(CONDITIONS),
    windKph: r.int(60),
    forecast: Array.from({ length: 3 }, (_, d) => ({ day: d + 1, highC: r.int(35), lowC: -5 + r.int(20), condition: r.pick(CONDITIONS) })),
  }),
  "tools.getProduct": (r, { sku: code }) => product(r, code),
  "tools.getExchangeRates": (r, { base }) => {
    const rates = {};
    for (const c of CURRENCIES) rates[c] = c === base ? 1 : (50 + r.int(100)) / 100;
    return { base, date: "2024-12-31", rates };
  },
  "tools.listUsers": (r, { count }) => Array.from({ length: count }, (_, i) => user(r, i)),
  "tools.listOrders": (r, { count, users = 1000 }) => Array.from({ length: count }, (_, i) => order(r, i, users)),
  "tools.listEvents": (r, { count }) => Array.from({ length: count }, (_, i) => event(r, i)),
  "tools.searchDocs": (r, { query, count = 20, words = 200 }) =>
    Array.from({ length: count }, (_, i) => {
      const d = doc(r, `doc-${i}`, words);
      if (r.chance(0.5)) d.body = d.body.replace(/\. /, `. About ${query}: `);
      return d;
    }),
  "tools.fetchDoc": (r, { id, words = 1500 }) => ({ ...doc(r, id, words), links: Array.from({ length: 5 }, () => `doc-${r.int(200)}`) }),
  "tools.crm.contacts": (r, { count }) => Array.from({ length: count }, (_, i) => contact(person(i), r, `crm-${i}`)),
  // About 60 % of the billing system's customers are the CRM's people with the same index.
  "tools.billing.customers": (r, { count }) =>
    Array.from({ length: count }, (_, i) => {
      const shared = fnv1a(`share:${i}`) % 10 < 6;
      const c = contact(shared ? person(i) : new Random(fnv1a(`billing-person:${i}`)), r, `bill-${i}`);
      return { id: c.id, fullName: c.name, email: c.email, phone: c.phone, plan: r.pick(PLANS), balance: r.money(-50, 500), updatedAt: c.updatedAt, tags: c.tags };
    }),
  "tools.listRepos": (r, { count }) => Array.from({ length: count }, (_, i) => repo(r, i)),
  "tools.listPage": (r0, { cursor, size, total }) => {
    const start = cursor ? Number(cursor.slice(2)) : 0;
    const items = [];
    for (let i = start; i < Math.min(start + size, total); i++) {
      const r = new Random(fnv1a(`item:${i}`));
      items.push({ id: i, title: sentence(r, 4).slice(0, -1), owner: personName(r), amount: r.money(0, 1000), status: r.pick(STATUSES), updatedAt: isoDate(r.int(365), r.int(86400)), tags: tagsOf(r, 2) });
    }
    const next = start + size < total ? `c:${start + size}` : null;
    return { items, nextCursor: next, total };
  },
};

export const TOOL_NAMES = Object.keys(GENERATORS);

const cache = new Map();

function answerText(name, args) {
  const key = `${name}:${JSON.stringify(args)}`;
  let text = cache.get(key);
  if (text === undefined) {
    const generate = GENERATORS[name];
    const r = new Random(fnv1a(key));
    text = JSON.stringify(generate(r, args[0] ?? {}));
    cache.set(key, text);
  }
  return text;
}

// The tool functions for `names`, as { "tools.x": async (...args) => value }. When `clock`
// is given, the time spent inside each call is added to clock.hostMs and counted in
// clock.calls; when clock.answers is an array, each answer's JSON text is pushed to it.
export function tools(names, clock = null) {
  const out = {};
  for (const name of names) {
    if (!GENERATORS[name]) throw new Error(`no tool ${name}`);
    out[name] = async (...args) => {
      const t0 = clock ? performance.now() : 0;
      const text = answerText(name, args);
      const value = JSON.parse(text);
      if (clock) {
        if (clock.answers) clock.answers.push(text);
        clock.hostMs += performance.now() - t0;
        clock.calls += 1;
      }
      return value;
    };
  }
  return out;
}

// Nested form of a flat { "tools.a.b": fn } map: { tools: { a: { b: fn } } }.
export function nest(flat) {
  const root = {};
  for (const [name, fn] of Object.entries(flat)) {
    const parts = name.split(".");
    let o = root;
    for (const p of parts.slice(0, -1)) o = o[p] ??= {};
    o[parts[parts.length - 1]] = fn;
  }
  return root;
}

export { Random, fnv1a };
