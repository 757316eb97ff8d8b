// `npm run build` step: tsc compiles TypeScript only; the SQL migrations travel beside the output.
// scripts/partner-manifest.json is not copied: the built register script reads the project's own
// (see defaultManifestPath), so an edit to it needs no rebuild.
import { cpSync } from 'node:fs';

for (const dir of ['src/db/migrations', 'src/mock-platform/migrations']) {
  cpSync(dir, `dist/${dir}`, { recursive: true });
}
