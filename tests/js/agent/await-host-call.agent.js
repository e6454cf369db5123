// `await` at the top level suspends the execution at a host call.
// capability: tools.lookup
// answer: {"id":1,"ok":{"name":"kiln","stars":40}}
const row = await tools.lookup("kiln");
const stars = row.stars + 2;
({ name: row.name, stars });
// expect: {"type":"suspended","calls":[{"id":1,"capability":"tools.lookup","args":["kiln"]}]}
// expect: {"type":"complete","value":{"name":"kiln","stars":42}}
