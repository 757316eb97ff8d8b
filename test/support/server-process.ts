import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The partner server as its own process (`src/partner/server.ts` under tsx), with `env` over the test's environment. */
export function startServerProcess(env: Record<string, string>) {
  // node itself, not the tsx wrapper: a signal must reach the server process, not a parent of it.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/partner/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const port = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /"port":(\d+).*partner server listening/.exec(output);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, exited, output: () => output };
}
export type ServerProcess = ReturnType<typeof startServerProcess>;
