/**
 * `npx tsx scripts/bench-drivers.ts`: node-postgres (`pg`, the partner's driver) or postgres.js, the
 * question docs/performance.md settles. Runs `npm run bench` three times one after the other,
 * measuring only the PostgreSQL baseline on each driver (`BENCH_TARGETS=pg-baseline,
 * pg-baseline-postgres-js`: the same statements and background work, the two servers taking turns
 * within each run, the order reversed every round), and prints, for each run and each callback,
 * postgres.js's ratio to node-postgres by CPU time per request (the servers' and the database's
 * together) and by throughput at 50 connections; then the medians of the three runs and what the
 * rule decides:
 *
 *   switch to postgres.js if it wins by 1.3× or more (CPU time per request, median of the three
 *   runs) on at least two of the three callbacks; otherwise stay on node-postgres.
 *
 * A win is not the whole question (the doc says what postgres.js still lacks); this settles whether
 * there is a win worth asking it for. The bench's own options apply (BENCH_ROUNDS, BENCH_SECONDS,
 * BENCH_ACCOUNTS, BENCH_CALLBACKS, BENCH_SKIP_BUILD); BENCH_DRIVER_RUNS (3) runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const RUNS = Number(process.env.BENCH_DRIVER_RUNS ?? 3);
const WIN = 1.3;
const NEEDED = 2;

interface Sample {
  cpuUs: number;
  databaseCpuUs?: number;
  rps: number;
}
type Results = Record<string, Record<string, { load: Sample[] }>>;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const dir = mkdtempSync(path.join(tmpdir(), 'bench-drivers-'));
/** By callback: postgres.js over node-postgres in each run, { cpu, rps } (above 1: postgres.js better). */
const ratios: Record<string, { cpu: number; rps: number; pg: number; js: number }[]> = {};
try {
  for (let run = 1; run <= RUNS; run++) {
    const json = path.join(dir, `run-${run}.json`);
    console.log(`run ${run} of ${RUNS}…`);
    execFileSync('npx', ['tsx', path.join(ROOT, 'scripts', 'bench.ts')], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        BENCH_TARGETS: 'pg-baseline,pg-baseline-postgres-js',
        BENCH_STARTUP: '0',
        BENCH_STATEMENTS: '0',
        BENCH_JSON: json,
        // Built once, by the first run.
        ...(run > 1 && { BENCH_SKIP_BUILD: '1' }),
      },
    });
    const results = JSON.parse(readFileSync(json, 'utf8')) as Results;
    for (const [label, byTarget] of Object.entries(results)) {
      const pg = byTarget['pg baseline']?.load ?? [];
      const js = byTarget['pg baseline, postgres.js']?.load ?? [];
      if (!pg.length || !js.length) continue;
      const cpu = (s: Sample[]) => median(s.map((x) => x.cpuUs));
      const rps = (s: Sample[]) => median(s.map((x) => x.rps));
      (ratios[label] ??= []).push({ cpu: cpu(pg) / cpu(js), rps: rps(js) / rps(pg), pg: cpu(pg), js: cpu(js) });
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  '\npostgres.js / node-postgres, the PostgreSQL baseline on each driver: by CPU time per request (by throughput at 50 connections), ' +
    'then the CPU time per request on node-postgres · postgres.js; above 1.00× postgres.js is better',
);
console.log(`  ${'callback'.padEnd(34)}${Array.from({ length: RUNS }, (_, i) => `run ${i + 1}`.padStart(30)).join('')}${'median'.padStart(12)}`);
let wins = 0;
for (const [label, each] of Object.entries(ratios)) {
  const cells = each.map((r) => ` ${r.cpu.toFixed(2)}× (${r.rps.toFixed(2)}×) ${r.pg.toFixed(0)}·${r.js.toFixed(0)} µs`.padStart(30)).join('');
  const cpu = median(each.map((r) => r.cpu));
  if (cpu >= WIN) wins += 1;
  console.log(`  ${label.padEnd(34)}${cells}${`${cpu.toFixed(2)}×`.padStart(12)}`);
}
const callbacks = Object.keys(ratios).length;
console.log(
  `\nRule: switch if postgres.js wins by ${WIN}× or more on at least ${NEEDED} callbacks (median of the runs, CPU time per request).` +
    `\nIt wins so on ${wins} of ${callbacks}: ${wins >= NEEDED ? 'switch to postgres.js (see docs/performance.md for what it still lacks)' : 'stay on node-postgres'}.`,
);
