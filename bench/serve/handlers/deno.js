// Deno.serve over the same Workers-form handlers.
const [which, port] = Deno.args;
const handler = (await import(`./${which}.js`)).default;
Deno.serve({ port: Number(port), hostname: "127.0.0.1", onListen() {} }, (request) => handler.fetch(request));
