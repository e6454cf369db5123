// Regular-expression search over 200 documents of about 300 words: ranks documents by
// the query's whole-word matches and pulls ticket references, e-mail addresses, dates
// and amounts out of the text.
const docs = await tools.searchDocs({ query: input.query, count: 200, words: 300 });
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const terms = input.query.toLowerCase().split(/\s+/).filter(Boolean);
const termRe = new RegExp(`\\b(?:${terms.map(escape).join("|")})\\b`, "gi");
const ticketRe = /\b([A-Z]{2,5})-(\d{1,5})\b/g;
const emailRe = /\b[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}\b/gi;
const dateRe = /\b(\d{4})-(\d{2})-(\d{2})\b/g;
const amountRe = /\$(\d{1,3}(?:,\d{3})*)\.(\d{2})/g;
const tickets = {};
const emails = new Set();
const months = {};
let cents = 0;
const ranked = [];
for (const d of docs) {
  const text = `${d.title}\n${d.body}`;
  const hits = text.match(termRe) || [];
  for (const m of text.matchAll(ticketRe)) tickets[m[1]] = (tickets[m[1]] || 0) + 1;
  for (const m of text.match(emailRe) || []) emails.add(m.toLowerCase());
  for (const m of text.matchAll(dateRe)) months[`${m[1]}-${m[2]}`] = (months[`${m[1]}-${m[2]}`] || 0) + 1;
  for (const m of text.matchAll(amountRe)) cents += Number(m[1].replace(/,/g, "")) * 100 + Number(m[2]);
  if (hits.length === 0) continue;
  const at = text.search(termRe);
  const snippet = text.slice(Math.max(0, at - 40), at + 60).replace(/\s+/g, " ").trim();
  ranked.push({ id: d.id, title: d.title, hits: hits.length, score: hits.length + d.score, snippet });
}
ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
const busiestMonths = Object.entries(months).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
return {
  matches: ranked.length,
  top: ranked.slice(0, 8),
  tickets,
  emails: [...emails].sort().slice(0, 15),
  distinctEmails: emails.size,
  busiestMonths,
  amount: (cents / 100).toFixed(2),
};
