#!/usr/bin/env node
// A stand-in for the recruiting platform, for the partners `npm run bench` runs: it accepts every
// report update (200 {}), so each send's background work goes all the way, as with a platform
// that knows the report: the start, the report update delivered, then the invitation e-mail, which
// waits for the platform to accept the report (docs/report-delivery.md). It runs on the load
// generator's core; its CPU time is no server's.
//   node bench/platform-accepts.mjs --port 0      prints "listening <port>"
import http from 'node:http';
import { argsOf } from './callbacks-work.mjs';

const args = argsOf(process.argv.slice(2));
const server = http.createServer((req, res) => {
  req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 }).end('{}'));
});
server.listen(Number(args.port ?? 0), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
