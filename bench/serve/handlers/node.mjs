// Both handlers over node:http, the same logic as trivial.js and realistic.js.
import http from "node:http";
import { summarize } from "./realistic.js";

const which = process.argv[2];
const port = Number(process.argv[3]);

function json(res, value) {
  const body = JSON.stringify(value);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

http
  .createServer((req, res) => {
    if (which === "trivial") return json(res, { ok: true });
    const url = new URL(req.url, `http://${req.headers.host}`);
    if (req.method === "POST" && url.pathname === "/api/orders") {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => json(res, summarize(JSON.parse(Buffer.concat(chunks).toString("utf8")))));
      return;
    }
    if (url.pathname === "/health") return json(res, { ok: true });
    res.writeHead(404).end("not found");
  })
  .listen(port, "127.0.0.1");
