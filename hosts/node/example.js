// A short tour of the Node host.
//
//     node hosts/node/example.js [ROOT]
//
// Uses ROOT as the memory root (default: a new temporary directory) and a
// pinned clock, so the output is the same on every run.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Memory, MemoryError } from 'agent-memory';

const root = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'agent-memory-node-'));
const memory = Memory.open(root, '/home/me/src/my-app', { now: '2026-05-30T09:15:00+02:00' });

console.log(memory.write('long-term', '- The user prefers small, reviewed pull requests.').message);
memory.write('scratchpad', '- [ ] Fix the flaky login test');
memory.appendDaily('login test', 'It flakes when the staging database is cold.');

console.log(memory.contextBlock());
console.log(memory.callTool('memory_search', { query: 'login' }));
try {
  memory.callTool('memory_write', { target: 'note', name: '../escape', content: 'x' });
} catch (error) {
  if (!(error instanceof MemoryError)) throw error;
  console.log(`refused: ${error.kind}: ${error.message}`);
} finally {
  memory.close();
}
