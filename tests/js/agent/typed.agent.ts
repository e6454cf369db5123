// A TypeScript agent script: its types are stripped, top-level await and return work.
// capability: tools.search
// answer: {"id":1,"ok":[{"title":"Kiln","score":0.9},{"title":"other","score":0.2}]}
interface Hit { title: string; score: number }
declare const tools: { search(query: string): Promise<Hit[]> };
const hits: Hit[] = await tools.search("kiln");
const best = hits.filter((h): h is Hit => h.score > 0.5);
if (best.length === 0) return "nothing" as const;
best.map(h => h.title).join(", ")
// expect: {"type":"suspended","calls":[{"id":1,"capability":"tools.search","args":["kiln"]}]}
// expect: {"type":"complete","value":"Kiln"}
