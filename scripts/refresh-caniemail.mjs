// Refreshes the vendored caniemail data (docs/decisions/0064-vendored-caniemail-data.md):
// `node scripts/refresh-caniemail.mjs [version]` fetches the `caniemail` package from the npm
// registry with `npm pack` (the package itself needs Node 22, so it is never installed), reads its
// data/caniemail.json (the caniemail.com API data, MIT © HTeuMeuLeu), keeps what the compatibility
// check reads (features with their per-client support, notes and links, for the client families
// of src/server/checks/clients.ts) and writes src/server/checks/caniemail-data.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, 'src/server/checks/caniemail-data.json');
const spec = `caniemail@${process.argv[2] ?? 'latest'}`;
// The families the client catalogue (src/server/checks/clients.ts) draws on.
const FAMILIES = [
  'gmail',
  'apple-mail',
  'outlook',
  'yahoo',
  'samsung-email',
  'aol',
  'thunderbird',
  'protonmail',
  'fastmail',
];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'caniemail-'));
try {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', spec, '--json', '--pack-destination', dir], { encoding: 'utf8' }),
  );
  const { filename, version } = packed[0];
  execFileSync('tar', ['xzf', path.join(dir, path.basename(filename)), '-C', dir]);
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package/package.json'), 'utf8'));
  const api = JSON.parse(fs.readFileSync(path.join(dir, 'package/data/caniemail.json'), 'utf8'));
  const features = {};
  for (const f of api.data) {
    const stats = {};
    for (const family of FAMILIES) if (f.stats[family]) stats[family] = f.stats[family];
    features[f.slug] = {
      title: f.title,
      category: f.category,
      url: f.url,
      notes: f.notes_by_num ?? {},
      stats,
    };
  }
  const data = {
    source: {
      package: 'caniemail',
      version,
      license: `${pkg.license} (data: caniemail.com, https://github.com/hteumeuleu/caniemail, MIT © HTeuMeuLeu)`,
      apiVersion: api.api_version,
      lastUpdate: api.last_update_date,
    },
    snapshotDate: new Date().toISOString().slice(0, 10),
    features,
  };
  fs.writeFileSync(out, `${JSON.stringify(data)}\n`);
  console.log(
    `caniemail ${version} (data of ${api.last_update_date}): ${Object.keys(features).length} features → ${path.relative(root, out)}`,
  );
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
