// What the shared vectors cannot say: the Node surface itself, the shim
// workaround, per-instance roots and the sandbox as seen from Node.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, symlinkSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Memory, MemoryError, ERROR_KINDS } from '../agent-memory.js';

const PROJECT = '/home/dev/src/my-app';
const NOW = '2026-05-30T09:15:00+02:00';
const tempDir = () => mkdtempSync(join(tmpdir(), 'agent-memory-node-'));

test('the preview2-shim workaround is still needed: without it every write fails', () => {
  const root = tempDir();
  writeFileSync(join(root, 'MEMORY.md'), '- planted');
  const broken = Memory.open(root, PROJECT, { now: NOW, shimOpenAtWorkaround: false });
  // Reads open files without `mutate-directory` and work anyway...
  assert.equal(broken.read('long-term'), '- planted');
  // ...but Rust's std asks for it on every write open, and the shim refuses.
  assert.throws(
    () => broken.write('long-term', '- lost'),
    (e) => e instanceof MemoryError && e.kind === 'io' && /Not supported/.test(e.message),
  );
  assert.equal(readFileSync(join(root, 'MEMORY.md'), 'utf8'), '- planted');
  // The same write through the default (patched) host goes through.
  const memory = Memory.open(root, PROJECT, { now: NOW });
  assert.equal(memory.write('long-term', '- kept').message, 'Appended 6 bytes to MEMORY.md');
  assert.equal(readFileSync(join(root, 'MEMORY.md'), 'utf8'), '- planted\n- kept');
});

test('one memory root per instance, several instances in one process', () => {
  const a = Memory.open(tempDir(), PROJECT, { now: NOW });
  const b = Memory.open(tempDir(), PROJECT, { now: NOW });
  a.write('long-term', 'only in a');
  assert.equal(b.read('long-term'), null);
  b.write('scratchpad', '- [ ] only in b');
  assert.equal(a.read('scratchpad'), null);
  assert.equal(readFileSync(join(a.root, 'MEMORY.md'), 'utf8'), 'only in a');
  assert.ok(!existsSync(join(b.root, 'MEMORY.md')));
  assert.deepEqual(readdirSync(a.root), ['MEMORY.md']);
});

test('errors carry the WIT kind and a message', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  assert.throws(
    () => memory.write('note', 'x', 'append', '../escape'),
    (e) => e instanceof MemoryError && e.kind === 'invalid-name' && e.message.includes('../escape'),
  );
  assert.throws(() => memory.callTool('memory_delete', {}), (e) => e.kind === 'unknown-tool');
  assert.throws(() => Memory.open(tempDir(), ''), (e) => e instanceof MemoryError && e.kind === 'invalid-options');
  for (const kind of ['invalid-name', 'not-found', 'io']) assert.ok(ERROR_KINDS.includes(kind));
});

test('a bad target, source or mode is refused before the component', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  assert.throws(() => memory.write('longterm', 'x'), (e) => e.kind === 'invalid-target');
  assert.throws(() => memory.write('long-term', 'x', 'prepend'), (e) => e.kind === 'invalid-mode');
  assert.throws(() => memory.read('list'), (e) => e.kind === 'invalid-target');
  assert.deepEqual(readdirSync(memory.root), []);
  // The tool words work as well as the WIT words.
  assert.equal(memory.write('long_term', '- a').path, 'MEMORY.md');
});

test('typed results: numbers for sizes, bigint for token arithmetic', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  assert.deepEqual(memory.write('note', 'Tokens rotate hourly.', 'append', 'auth'), {
    path: `${memory.projectDir}/notes/auth.md`,
    bytesWritten: 21,
    truncatedFrom: null,
    message: `Appended 21 bytes to ${memory.projectDir}/notes/auth.md`,
  });
  assert.deepEqual(memory.listFiles(), [{ path: `${memory.projectDir}/notes/auth.md`, bytes: 21 }]);
  const results = memory.search('rotate');
  assert.deepEqual(results.terms, [{ term: 'rotate', count: 1 }]);
  assert.equal(memory.renderSearch(results), memory.callTool('memory_search', { query: 'rotate' }));
  assert.equal(memory.estimateTokens('12345'), 2n);
  assert.equal(memory.effectiveReserve(2n ** 64n - 1n, 'xxxx'), 2n ** 64n - 1n);
  assert.equal(memory.effectiveReserve(1000, null), 1000n);
  assert.deepEqual(memory.toolDefinitions()[0].parameters.required, ['target', 'content']);
  assert.equal(memory.compactionHeading(3), 'compaction summary (3 msgs)');
  assert.equal(memory.projectSlug, 'my-app-f5485506');
  assert.equal(memory.today, '2026-05-30');
});

test('now as a Date with an explicit offset, and the system clock by default', () => {
  const west = Memory.open(tempDir(), PROJECT, { now: new Date('2026-05-29T23:30:00Z'), utcOffsetMinutes: -420 });
  assert.equal(west.today, '2026-05-29');
  const east = Memory.open(tempDir(), PROJECT, { now: '2026-05-30T01:30:00+02:00' });
  assert.equal(east.appendDaily('east', 'x').path, `${east.projectDir}/daily/2026-05-30.md`);
  assert.throws(() => Memory.open(tempDir(), PROJECT, { now: '2026-05-30 09:15' }), TypeError);
  const live = Memory.open(tempDir(), PROJECT);
  const d = new Date();
  const local = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  assert.equal(live.today, local);
});

test('a symlink out of the root leaks nothing', () => {
  const outside = tempDir();
  writeFileSync(join(outside, 'secret.md'), 'top secret');
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  const notes = join(memory.root, memory.projectDir, 'notes');
  mkdirSync(notes, { recursive: true });
  symlinkSync(join(outside, 'secret.md'), join(notes, 'leak.md'));
  assert.throws(() => memory.read('note', 'leak'), (e) => e.kind === 'not-a-file');
  assert.throws(() => memory.write('note', 'overwritten', 'overwrite', 'leak'), MemoryError);
  assert.equal(readFileSync(join(outside, 'secret.md'), 'utf8'), 'top secret');
  assert.deepEqual(memory.search('secret').hits, []);
});
