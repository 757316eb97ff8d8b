import { conformanceCli } from '../../src/conformance/cli.js';

/**
 * `npm run conformance -- …` in this process, through `conformanceCli` (what the script runs): its
 * exit code and what it printed. `waitForEnter` stands for the operator pressing Enter, given what
 * was printed so far.
 */
export async function runConformanceCli(
  args: string[],
  options: { env?: Record<string, string>; waitForEnter?: (stdout: () => string) => Promise<void> } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await conformanceCli(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: options.env ?? {},
    defaultPublicUrl: 'http://127.0.0.1:3000',
    ...(options.waitForEnter && { waitForEnter: () => options.waitForEnter!(() => stdout) }),
  });
  return { code, stdout, stderr };
}
