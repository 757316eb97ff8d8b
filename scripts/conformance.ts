/**
 * Checks a partner server against a platform's contract, over HTTP, as that platform calls it:
 *
 *   npm run conformance -- http://127.0.0.1:3000/callbacks --token <A> --token <B> [--results-secret <S>] [--mock] [--yes]
 *   npm run conformance -- --platform greenhouse http://127.0.0.1:3000/greenhouse --key <K> [--other-key <L>] [--results-secret <S>] [--yes]
 *   npm run conformance -- --platform ashby http://127.0.0.1:3000/ashby --key <K> --other-key <L> [--results-secret <S>] [--wait]
 *
 * `--platform <name>` picks one of the platforms the checker registers
 * (src/conformance/platforms/index.ts); `--help` lists them and each one's options;
 * docs/conformance.md describes every check. The checker itself is src/conformance/.
 */
import { isEntryPoint, processOutput } from '../src/lib/cli.js';
import { conformanceCli } from '../src/conformance/cli.js';
import { loadEnvFile } from '../src/lib/env-file.js';
import { publicUrlOf } from '../src/partner/defaults.js';

if (isEntryPoint(import.meta.url)) {
  loadEnvFile();
  process.exitCode = await conformanceCli(process.argv.slice(2), {
    ...processOutput,
    env: process.env,
    defaultPublicUrl: publicUrlOf(process.env),
    // A terminal is asked before the run creates anything; CI (no terminal) is told, and goes on.
    interactive: process.stdin.isTTY === true,
  });
}
