// `npm run build` step: tsc compiles TypeScript only; the SQL migrations travel beside the output —
// the kit's (src/partner/db/migrations and migrations-postgres), the demo's
// (src/partner/provider/demo/migrations) and every .sql file of the vendor's folder, src/provider/,
// whatever folder it keeps them in (a platform of its own: src/provider/<name>/…): each lands at its
// path under dist/, where the compiled module beside it finds it
// (`fileURLToPath(new URL('./migrations/', import.meta.url))`).
// scripts/partner-manifest.json is not copied: the built register script reads the project's own
// (see defaultManifestPath), so an edit to it needs no rebuild.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

for (const root of ['src/partner', 'src/provider']) {
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.sql')) continue;
    const from = path.join(entry.parentPath, entry.name);
    cpSync(from, path.join('dist', from));
  }
}
