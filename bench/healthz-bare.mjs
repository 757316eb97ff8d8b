#!/usr/bin/env node
// Start-up reference: the least a Node process can do to answer GET /healthz. `npm run bench`
// times it from spawn to its first answer, and reads its resident memory once idle, beside the
// partner server and healthz-express.mjs. PORT from the environment.
import http from 'node:http';

http.createServer((req, res) => res.end('{"ok":true}')).listen(Number(process.env.PORT), '127.0.0.1');
