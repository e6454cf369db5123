'use strict';
// kiln-sandbox: run untrusted and agent-written JavaScript and TypeScript in Kiln, with
// host capabilities, budgets, cancellation and snapshots. See README.md.
module.exports = require('./lib/sandbox');
