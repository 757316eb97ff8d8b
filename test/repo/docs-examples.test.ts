import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * The modules docs/adapting.md shows a vendor are real code: each ```ts block that starts with
 * `// examples/<file>` or `// test/fork/<file>` is that file, word for word, and the type checker
 * and the linter check the file (tsconfig.json includes examples/ and test/); the fork's tests run
 * the one in test/fork/.
 */
describe('the modules shown in docs/adapting.md', () => {
  const doc = readFileSync(path.join(ROOT, 'docs/adapting.md'), 'utf8');
  const blocks = [...doc.matchAll(/```ts\n(\/\/ ((?:examples|test\/fork)\/\S+\.ts)[\s\S]*?)```/g)].map((m) => ({ code: m[1]!, file: m[2]! }));

  it('shows one module for each shape of product, and routes of a fork\'s own', () => {
    expect(blocks.map((b) => b.file)).toEqual(['examples/adapting/kit-page.ts', 'examples/adapting/own-product.ts', 'test/fork/my-routes.ts']);
  });

  it('shows the PartnerRoutes type as src/partner/app.ts declares it', () => {
    const declared = /^export (type PartnerRoutes = .*;)$/m.exec(readFileSync(path.join(ROOT, 'src/partner/app.ts'), 'utf8'))?.[1];
    expect(declared).toBeDefined();
    expect(doc).toContain(`\`\`\`ts\n${declared}\n\`\`\``);
  });

  it.each(blocks.map((b) => [b.file, b.code]))('%s is the file, word for word', (file, code) => {
    expect(code).toBe(readFileSync(path.join(ROOT, file), 'utf8'));
  });
});
