// Bun.serve over the same Workers-form handlers.
const which = process.argv[2];
const port = Number(process.argv[3]);
const handler = (await import(`./${which}.js`)).default;
Bun.serve({ port, hostname: "127.0.0.1", fetch: (request) => handler.fetch(request) });
