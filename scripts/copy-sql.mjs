// `npm run build` step: tsc compiles TypeScript only; the SQL migrations travel beside the output.
import { cpSync } from 'node:fs';

cpSync('src/partner/db/migrations', 'dist/src/partner/db/migrations', { recursive: true });
