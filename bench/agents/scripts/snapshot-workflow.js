// A multi-step agent workflow meant to be snapshotted at every tool call: search, then
// read the five best documents one at a time (each read waits on the last), look up
// each author, and write a short brief. State carried across the calls: the search
// results, the documents read so far and the notes made from them.
const results = await tools.searchDocs({ query: input.topic, count: 50, words: 120 });
const shortlist = results
  .filter((d) => d.body.toLowerCase().includes(input.topic))
  .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
  .slice(0, 5);
const notes = [];
const seen = new Set();
for (const hit of shortlist) {
  const doc = await tools.fetchDoc({ id: hit.id, words: 1500 });
  const sentences = doc.body.split(/(?<=\.)\s+/);
  const relevant = sentences.filter((s) => s.toLowerCase().includes(input.topic));
  const tickets = [...new Set(doc.body.match(/\b[A-Z]{2,5}-\d+\b/g) || [])];
  for (const link of doc.links) seen.add(link);
  notes.push({ id: doc.id, title: doc.title, author: doc.author.name, sentences: sentences.length, relevant: relevant.slice(0, 2), tickets });
}
const authors = await Promise.all([...new Set(notes.map((n) => n.author))].map((name, i) => tools.getUser({ id: 900 + i })));
return {
  topic: input.topic,
  considered: results.length,
  read: notes.map((n) => n.id),
  brief: notes.map((n) => `${n.title} (${n.author}, ${n.sentences} sentences): ${n.relevant.join(" ")}`),
  tickets: [...new Set(notes.flatMap((n) => n.tickets))].sort(),
  reviewers: authors.map((u) => u.email),
  linked: seen.size,
};
