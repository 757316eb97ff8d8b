// `npm run build` step: tsc compiles TypeScript only; the SQL migrations travel beside the output.
// scripts/partner-manifest.json is not copied: the built register script reads the project's own
// (see defaultManifestPath), so an edit to it needs no rebuild.
import { cpSync } from 'node:fs';

cpSync('src/partner/db/migrations', 'dist/src/partner/db/migrations', { recursive: true });
