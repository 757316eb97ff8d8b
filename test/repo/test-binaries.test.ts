import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumCandidates, fontsConfig } from '../support/binaries.js';

describe("the page tests' Chromium from npm", () => {
  it('is tried before a browser of the system: it is the headless shell, which runs the page tests in half the time', () => {
    const kinds = chromiumCandidates().map((c) => c.kind);
    expect(kinds).toContain('bundled');
    expect(kinds.slice(kinds.indexOf('bundled') + 1)).not.toContain('bundled');
    // Only Playwright's own build, when it was downloaded, comes before it.
    expect(chromiumCandidates().slice(0, kinds.indexOf('bundled')).every((c) => c.describe.startsWith("Playwright's"))).toBe(true);
  });

  it('finds its fonts where the build is now, after the project moved since it was unpacked', () => {
    const build = mkdtempSync(path.join(tmpdir(), 'chromium-build-'));
    const moved = path.join(build, 'fonts.conf');
    // As the unpacking left it in the folder the project was in before.
    writeFileSync(moved, '<fontconfig><dir>/where/it/was/fonts</dir><cachedir>/where/it/was/fonts-cache</cachedir></fontconfig>\n');
    expect(fontsConfig(build)).toBe(moved);
    const written = readFileSync(moved, 'utf8');
    expect(written).toContain(`<dir>${path.join(build, 'fonts')}</dir>`);
    expect(written).toContain(`<cachedir>${path.join(build, 'fonts-cache')}</cachedir>`);
    expect(written).not.toContain('/where/it/was');
    // Right already: left as it is (a rewrite is a rename, a new file).
    const file = statSync(moved).ino;
    fontsConfig(build);
    expect(statSync(moved).ino).toBe(file);
    rmSync(build, { recursive: true, force: true });
  });
});
