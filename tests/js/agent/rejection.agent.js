// An uncaught error after an await ends the run as an exception.
// capability: tools.fetch
// answer: {"id":1,"error":{"name":"FetchError","message":"timed out"}}
const page = await tools.fetch("https://example.com");
return page.length;
// expect: {"type":"suspended","calls":[{"id":1,"capability":"tools.fetch","args":["https://example.com"]}]}
// expect: {"type":"error","kind":"Exception","message":"FetchError: timed out"}
// expect-error: "kind":"Exception"
