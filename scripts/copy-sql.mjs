// `npm run build` step: tsc compiles TypeScript only; the SQL migrations travel beside the output.
import { cpSync } from 'node:fs';

for (const dir of ['src/db/migrations', 'src/mock-platform/migrations']) {
  cpSync(dir, `dist/${dir}`, { recursive: true });
}
