// `npm start` runs this first: it builds the web app when dist/web is missing or older than its
// sources, so a fresh clone needs only `npm install && npm start`, and later starts stay fast.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const stamp = path.join(root, 'dist/web/index.html');
const inputs = ['src/web', 'src/shared', 'vite.config.ts', 'package.json'];

function newest(p) {
  const stat = fs.statSync(p, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let max = stat.mtimeMs;
  for (const entry of fs.readdirSync(p)) max = Math.max(max, newest(path.join(p, entry)));
  return max;
}

const built = fs.statSync(stamp, { throwIfNoEntry: false })?.mtimeMs ?? 0;
const sources = Math.max(...inputs.map((i) => newest(path.join(root, i))));
if (built < sources) {
  console.log(built ? 'Web sources changed: rebuilding…' : 'First start: building the web app…');
  const result = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
