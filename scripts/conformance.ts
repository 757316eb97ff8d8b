/**
 * Checks a partner server against the platform contract, over HTTP, as the platform calls it:
 *
 *   npm run conformance -- http://127.0.0.1:3000/callbacks --token <A> --token <B> [--platform]
 *
 * `--help` lists the options; docs/conformance.md describes every check. The checker itself is
 * src/conformance/.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { conformanceCli } from '../src/conformance/cli.js';
import { loadEnvFile } from '../src/lib/env-file.js';
import { publicUrlOf } from '../src/partner/defaults.js';

const isEntryPoint = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isEntryPoint) {
  loadEnvFile();
  process.exitCode = await conformanceCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    defaultPublicUrl: publicUrlOf(process.env),
  });
}
