import { cpSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Enough of the Dockerfile's language to read the kit's (test/repo/deploy.test.ts) and to lay out
 * what its runtime stage puts in the image (test/fork/fresh-copy.test.ts runs the image's command
 * there): there is no Docker where the tests run.
 */

export interface Instruction {
  name: string;
  args: string;
}

/** The Dockerfile's instructions in order, continuation lines joined, comments dropped. */
export function instructions(text: string): Instruction[] {
  const lines = text.split('\n').filter((line) => !/^\s*#/.test(line));
  return lines
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const [, name, args] = /^(\S+)\s*(.*)$/.exec(line)!;
      return { name: name!.toUpperCase(), args: args!.trim() };
    });
}

/** Instructions grouped by FROM: each stage's FROM line first. */
export function stages(all: Instruction[]): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of all) {
    if (instruction.name === 'FROM') result.push([]);
    result.at(-1)?.push(instruction);
  }
  return result;
}

/** An exec-form (JSON array) or shell-form command, as one string. */
export const commandOf = (args: string) => (args.startsWith('[') ? (JSON.parse(args) as string[]).join(' ') : args);

/** COPY's flags, sources and destination; a JSON-form COPY is an array. */
export function copyParts(args: string): { flags: string[]; sources: string[]; dest: string } {
  const words = args.startsWith('[') ? (JSON.parse(args) as string[]) : args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const paths = words.filter((w) => !w.startsWith('--'));
  return { flags, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** `ENV A=1 B=2` (or the old `ENV A 1`) as a map. */
export function envOf(args: string): Map<string, string> {
  if (!args.includes('=')) {
    const [key, ...value] = args.split(/\s+/);
    return new Map([[key!, value.join(' ')]]);
  }
  return new Map([...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, '')]));
}

/**
 * Whether .dockerignore keeps `file` (relative to the context) out of the build context: the last
 * pattern that matches it or a folder above it decides (`!` re-includes), as Docker does.
 */
export function ignoredByDocker(file: string, dockerignore: string): boolean {
  const patterns = dockerignore
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const toRegex = (pattern: string) =>
    new RegExp(
      '^' +
        pattern
          .replace(/^\/+|\/+$/g, '')
          .split('**/')
          .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]'))
          .join('(?:.*/)?') +
        '$',
    );
  const segments = path.posix.normalize(file).replace(/^\.\/|\/$/g, '').split('/');
  const candidates = segments.map((_, i) => segments.slice(0, i + 1).join('/'));
  let ignored = false;
  for (const pattern of patterns) {
    const negated = pattern.startsWith('!');
    const regex = toRegex(negated ? pattern.slice(1) : pattern);
    if (candidates.some((c) => regex.test(c))) ignored = !negated;
  }
  return ignored;
}

/** Where the image's runtime stage runs its command from, with what, and the environment it sets. */
export interface LaidOutImage {
  /** The WORKDIR, inside the folder that stands for the image's root. */
  cwd: string;
  /** The runtime stage's ENV. */
  env: Record<string, string>;
  /** CMD (exec form): the program and its arguments. */
  command: string[];
}

/**
 * Lays out in `root` (standing for the image's `/`) what the last stage of the Dockerfile in
 * `context` puts in the image: its COPY from the context (through .dockerignore) and from the build
 * stage, whose WORKDIR is `built` (the context after the build stage's RUN, `npm run build`), its
 * `mkdir`, and `npm ci` as a link to the project's own node_modules. A RUN it does not know throws:
 * the test would otherwise run something other than the image.
 */
export function layOutImage(options: { context: string; built: string; root: string }): LaidOutImage {
  const { context, built, root } = options;
  const dockerfile = instructions(readFileSync(path.join(context, 'Dockerfile'), 'utf8'));
  const dockerignore = readFileSync(path.join(context, '.dockerignore'), 'utf8');
  const all = stages(dockerfile);
  const buildStages = new Map(
    all.slice(0, -1).map((stage) => [/\bAS\s+(\S+)/i.exec(stage[0]!.args)?.[1] ?? '', stage.filter((i) => i.name === 'WORKDIR').at(-1)?.args ?? '/'] as const),
  );
  const inImage = (absolute: string) => path.join(root, absolute);
  let workdir = '/';
  const env: Record<string, string> = {};
  let command: string[] | undefined;
  for (const { name, args } of all.at(-1)!) {
    if (name === 'WORKDIR') {
      workdir = path.posix.resolve(workdir, args);
      mkdirSync(inImage(workdir), { recursive: true });
    } else if (name === 'ENV') {
      Object.assign(env, Object.fromEntries(envOf(args)));
    } else if (name === 'COPY') {
      const { flags, sources, dest } = copyParts(args);
      const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
      const target = inImage(path.posix.resolve(workdir, dest));
      const intoFolder = dest.endsWith('/') || dest === '.' || sources.length > 1;
      for (const source of sources) {
        let file: string;
        if (from === undefined) {
          file = path.join(context, source);
        } else {
          const stageDir = buildStages.get(from);
          const relative = stageDir === undefined ? undefined : path.posix.relative(stageDir, source);
          if (relative === undefined || relative.startsWith('..')) throw new Error(`COPY --from=${from} ${source}: not in the build stage's WORKDIR`);
          file = path.join(built, relative);
        }
        const to = intoFolder && !statSync(file).isDirectory() ? path.join(target, path.basename(source)) : target;
        mkdirSync(path.dirname(to), { recursive: true });
        cpSync(file, to, {
          recursive: true,
          filter: (copied) => from !== undefined || !ignoredByDocker(path.relative(context, copied) || '.', dockerignore),
        });
      }
    } else if (name === 'RUN') {
      for (const step of args.split('&&').map((s) => s.trim())) {
        if (/^npm ci\b/.test(step)) symlinkSync(realpathSync(path.join(context, 'node_modules')), inImage(path.posix.join(workdir, 'node_modules')), 'dir');
        else if (/^npm cache clean\b/.test(step) || /^chown\b/.test(step)) continue;
        else if (/^mkdir -p \S+$/.test(step)) mkdirSync(inImage(path.posix.resolve(workdir, step.split(/\s+/)[2]!)), { recursive: true });
        else throw new Error(`RUN ${step}: not something this layout knows how to do`);
      }
    } else if (name === 'CMD') {
      if (!args.startsWith('[')) throw new Error(`CMD ${args}: the exec form (a JSON array) only`);
      command = JSON.parse(args) as string[];
    } else if (name === 'ENTRYPOINT') {
      throw new Error('ENTRYPOINT: not something this layout knows how to run');
    }
  }
  if (!command) throw new Error('The Dockerfile has no CMD');
  return { cwd: inImage(workdir), env, command };
}
