import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { prepareChromium } from './support/binaries.js';
import { compileKit } from './support/compiled-kit.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where the kit is compiled for the tests that run it as a process (see test/support/compiled-kit.ts). */
    compiledKit: string;
  }
}

const ROOT = path.resolve(import.meta.dirname, '..');

/**
 * What the projects share: vitest runs this setup once for each project (and for the root config),
 * in one process, and one compiled kit serves them all.
 */
const shared = globalThis as { kitTestSetup?: { dir: string; ready: Promise<unknown>; projects: number } };

/**
 * Compiles the kit once per run, and again before each rerun in watch mode, for the process tests;
 * unpacks npm's Chromium when the page tests will use it (test/support/binaries.ts).
 */
export default async function setup(project: TestProject) {
  if (!shared.kitTestSetup) {
    const dir = mkdtempSync(path.join(tmpdir(), 'kit-compiled-'));
    shared.kitTestSetup = { dir, ready: Promise.all([compileKit(ROOT, dir), prepareChromium()]), projects: 0 };
    project.onTestsRerun(() => compileKit(ROOT, dir));
  }
  const kit = shared.kitTestSetup;
  kit.projects += 1;
  await kit.ready;
  project.provide('compiledKit', kit.dir);
  return () => {
    kit.projects -= 1;
    if (kit.projects > 0) return;
    rmSync(kit.dir, { recursive: true, force: true });
    delete shared.kitTestSetup;
  };
}
