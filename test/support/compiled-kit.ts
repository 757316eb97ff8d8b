import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
// Vite is what Vitest loads the kit with in the test process; its TypeScript transform compiles the
// copy the child processes run, so both run the same JavaScript.
import { transformWithOxc } from 'vite';

/** The folders of the kit that hold code a process of it may run: the sources and the CLIs. */
const CODE = ['src', 'scripts'];
/** What the code reads beside itself (migrations) or from the project (templates, manifests). */
const DATA = /\.(sql|json)$/;
/** Read from the project root, found as the nearest folder with a package.json. */
const SHARED = ['views', 'node_modules'];

/**
 * Compiles the kit into `outDir`, laid out as the project is — `src/…/x.js` for `src/…/x.ts`, the
 * SQL migrations and manifests beside them, a package.json, and `views/` and `node_modules/` linked
 * to the project's — so that `node outDir/src/partner/server.js` is the partner as `npm start` runs
 * the build, and `node outDir/scripts/dev.js` is `npm run dev`, without tsx's loader compiling
 * every module again in every process (most of a process's start-up). Run again, it starts over.
 */
export async function compileKit(root: string, outDir: string): Promise<void> {
  for (const name of readdirSync(outDir)) rmSync(path.join(outDir, name), { recursive: true, force: true });
  writeFileSync(path.join(outDir, 'package.json'), readFileSync(path.join(root, 'package.json')));
  for (const name of SHARED) symlinkSync(path.join(root, name), path.join(outDir, name), 'dir');
  const compiling: Promise<void>[] = [];
  for (const dir of CODE) {
    for (const entry of readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const from = path.join(entry.parentPath, entry.name);
      const to = path.join(outDir, path.relative(root, from));
      mkdirSync(path.dirname(to), { recursive: true });
      if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) {
        compiling.push(
          transformWithOxc(readFileSync(from, 'utf8'), from, { lang: 'ts', sourcemap: false }).then((out) =>
            writeFileSync(to.replace(/\.ts$/, '.js'), out.code),
          ),
        );
      } else if (DATA.test(entry.name)) {
        cpSync(from, to);
      }
    }
  }
  await Promise.all(compiling);
}
