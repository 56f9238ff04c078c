// node cold.mjs OLD_PACKAGE NEW_PACKAGE [ROUNDS]: whole processes of
// `node first.mjs PACKAGE ROOT` (open a memory in a fresh root, write once),
// the two packages interleaved, ROUNDS (9) each; prints each median.
// A package is the path of its agent-memory.js.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const first = fileURLToPath(new URL('first.mjs', import.meta.url));
const pk = { old: process.argv[2], new: process.argv[3] };
const rounds = Number(process.argv[4] ?? 9);
const times = { old: [], new: [] };
for (let i = 0; i < rounds; i++) {
  for (const k of i % 2 ? ['new', 'old'] : ['old', 'new']) {
    const root = mkdtempSync(join(tmpdir(), `cold-${k}-`));
    const t = process.hrtime.bigint();
    const r = spawnSync('node', [first, pk[k], root], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error(`${k} failed`);
    times[k].push(Number(process.hrtime.bigint() - t) / 1e6);
  }
}
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[(s.length - 1) >> 1]; };
for (const k of ['old', 'new']) console.log(k, 'median', med(times[k]).toFixed(1), 'ms; all', times[k].map((x) => x.toFixed(0)).join(' '));
