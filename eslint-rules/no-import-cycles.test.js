import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import noImportCycles from './no-import-cycles.js';

/** Lints a small TypeScript project written to a temporary folder, with only this rule on. */
describe('local/no-import-cycles', () => {
  let dir;
  const files = {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        module: 'ESNext',
        moduleResolution: 'bundler',
        allowImportingTsExtensions: true,
        noEmit: true,
      },
      include: ['src'],
    }),
    // A cycle of type-only imports: what import/no-cycle lets through.
    'src/types-a.ts': "import type { B } from './types-b.ts';\nexport interface A { b: B }\n",
    'src/types-b.ts': "import type { A } from './types-a.ts';\nexport interface B { a?: A }\n",
    // A runtime cycle through three files, closed by a re-export.
    'src/one.ts': "import { two } from './two.ts';\nexport const one = () => two();\n",
    'src/two.ts': "import { three } from './three.ts';\nexport const two = () => three();\n",
    'src/three.ts': "export { one as three } from './one.ts';\n",
    // A dynamic import closes a cycle too.
    'src/lazy.ts': "export const load = () => import('./eager.ts');\n",
    'src/eager.ts': "import { load } from './lazy.ts';\nexport const again = load;\n",
    // No cycle: a chain and a shared leaf, type-only or not.
    'src/leaf.ts': 'export interface Leaf { id: string }\nexport const leaf = 1;\n',
    'src/middle.ts':
      "import type { Leaf } from './leaf.ts';\nimport { leaf } from './leaf.ts';\nexport const middle = (l: Leaf) => l.id + leaf;\n",
    'src/top.ts':
      "import { middle } from './middle.ts';\nimport type { Leaf } from './leaf.ts';\nexport const top = (l: Leaf) => middle(l);\n",
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-import-cycles-'));
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), text);
    }
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function lint() {
    const eslint = new ESLint({
      cwd: dir,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: { parser: tseslint.parser },
          plugins: { local: { rules: { 'no-import-cycles': noImportCycles } } },
          rules: { 'local/no-import-cycles': 'error' },
        },
      ],
    });
    const results = await eslint.lintFiles(['src/**/*.ts']);
    return Object.fromEntries(
      results.map((r) => [path.relative(dir, r.filePath), r.messages.map((m) => `${m.line}: ${m.message}`)]),
    );
  }

  it('reports every import that closes a cycle, type-only and dynamic ones included, with the way around', async () => {
    const found = await lint();
    expect(found['src/types-a.ts']).toEqual([
      '1: Import cycle (type-only imports count too): src/types-a.ts → src/types-b.ts → src/types-a.ts. Move what both sides need to a module both can import.',
    ]);
    expect(found['src/types-b.ts']).toHaveLength(1);
    expect(found['src/one.ts']).toEqual([
      '1: Import cycle (type-only imports count too): src/one.ts → src/two.ts → src/three.ts → src/one.ts. Move what both sides need to a module both can import.',
    ]);
    expect(found['src/two.ts']).toHaveLength(1);
    expect(found['src/three.ts']).toHaveLength(1);
    expect(found['src/lazy.ts']).toHaveLength(1);
    expect(found['src/eager.ts']).toHaveLength(1);
  });

  it('leaves files outside any cycle alone', async () => {
    const found = await lint();
    expect(found['src/leaf.ts']).toEqual([]);
    expect(found['src/middle.ts']).toEqual([]);
    expect(found['src/top.ts']).toEqual([]);
  });
});
