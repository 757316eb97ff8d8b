// `npm run build` step: tsc compiles TypeScript only; the SQL migrations travel beside the output —
// the kit's (src/partner/db/migrations), the demo's (src/partner/provider/demo/migrations) and the
// vendor's own, anywhere under src/provider/ — each with its PostgreSQL counterpart
// (migrations-postgres).
// scripts/partner-manifest.json is not copied: the built register script reads the project's own
// (see defaultManifestPath), so an edit to it needs no rebuild.
import { cpSync, readdirSync } from 'node:fs';
import path from 'node:path';

for (const root of ['src/partner', 'src/provider']) {
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isDirectory() || (entry.name !== 'migrations' && entry.name !== 'migrations-postgres')) continue;
    const from = path.join(entry.parentPath, entry.name);
    cpSync(from, path.join('dist', from), { recursive: true });
  }
}
