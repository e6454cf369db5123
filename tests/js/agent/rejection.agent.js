// An uncaught error after an await ends the run as an exception.
// capability: tools.fetch
// answer: {"id":1,"error":{"name":"FetchError","message":"timed out"}}
const page = await tools.fetch("https://example.com");
return page.length;
// expect: {"calls":[{"args":["https://example.com"],"capability":"tools.fetch","id":1}],"type":"suspended"}
// expect: {"kind":"Exception","message":"FetchError: timed out","type":"error"}
// expect-error: "kind":"Exception"
