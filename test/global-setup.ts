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
 * Compiles the kit once per run, and again before each rerun in watch mode, for the process tests;
 * unpacks npm's Chromium when the page tests will use it (test/support/binaries.ts).
 */
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kit-compiled-'));
  await Promise.all([compileKit(ROOT, dir), prepareChromium()]);
  project.provide('compiledKit', dir);
  project.onTestsRerun(() => compileKit(ROOT, dir));
  return () => rmSync(dir, { recursive: true, force: true });
}
