import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * A file that arrived with an application and is not stored yet: a multipart part already written
 * to the incoming directory, or the decoded bytes of a JSON file object. `name` and `contentType`
 * are what the client said; they are recorded, never used to build a path.
 */
export class IncomingFile {
  constructor(
    readonly name: string,
    readonly contentType: string,
    readonly size: number,
    readonly source: { tempPath: string } | { data: Buffer },
  ) {}
}

/**
 * Where uploaded files live: `{uploadsDir}/.incoming/` while a request is being read and validated,
 * then `{uploadsDir}/{companyId}/{uuid}{.ext}` once they belong to a candidate. Stored paths are
 * relative to `uploadsDir`, with forward slashes.
 */
export function uploadStorage(uploadsDir: string) {
  const root = path.resolve(uploadsDir);
  const incomingDir = path.join(root, '.incoming');
  mkdirSync(incomingDir, { recursive: true });

  return {
    incomingDir,
    absolute(relativePath: string): string {
      return path.join(root, ...relativePath.split('/'));
    },
    /** Moves (or writes) the file into the company's folder; returns its stored relative path. */
    async store(companyId: number, file: IncomingFile): Promise<string> {
      const relative = `${companyId}/${randomUUID()}${safeExtension(file.name)}`;
      const target = path.join(root, ...relative.split('/'));
      await mkdir(path.dirname(target), { recursive: true });
      if ('tempPath' in file.source) await rename(file.source.tempPath, target);
      else await writeFile(target, file.source.data, { flag: 'wx' });
      return relative;
    },
    /** Deletes what is left of files that will not be stored (a stored file has left the incoming folder). */
    async discard(files: Iterable<IncomingFile>): Promise<void> {
      const paths = [...files].flatMap((f) => ('tempPath' in f.source ? [f.source.tempPath] : []));
      await Promise.all(paths.map((p) => rm(p, { force: true })));
    },
    async remove(relativePaths: Iterable<string>): Promise<void> {
      await Promise.all([...relativePaths].map((p) => rm(path.join(root, ...p.split('/')), { force: true })));
    },
  };
}
export type UploadStorage = ReturnType<typeof uploadStorage>;

/** Keeps a short alphanumeric extension so stored files open with the right program; drops anything else. */
function safeExtension(name: string): string {
  const ext = path.extname(name).toLowerCase();
  return /^\.[a-z0-9]{1,10}$/.test(ext) ? ext : '';
}
