// What the shared vectors cannot say: the Node surface itself (the package,
// handles and groups, limits, recovery, the sandbox).

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, symlinkSync, readdirSync, realpathSync, rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { createHash } from 'node:crypto';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Memory, MemoryError, MemoryTrap, openGroup, WRITE_TARGETS, READ_SOURCES, WRITE_MODES,
  SEARCH_MODES, TOOL_SETS, SECRET_POLICIES, OPERATIONS,
} from 'agent-memory';
import * as api from 'agent-memory';
import { capMemories } from 'agent-memory/memory-cap';
import { witCases, REPO } from './conformance.js';

const PROJECT = '/home/dev/src/my-app';
const NOW = '2026-05-30T09:15:00+02:00';
// Every scratch root is removed when the file's tests end: one of them holds
// 128 MB of daily logs, and CI machines have little disk to spare.
const scratch = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'agent-memory-node-'));
  scratch.push(dir);
  return dir;
};
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

// .ci/hosts.sh runs this suite in a scratch project next to the installed
// tarball, and says where the repository is; a run in hosts/node itself
// resolves `agent-memory` to the source tree by self-reference.
const installedRun = process.env.AGENT_MEMORY_REPO !== undefined;

test('the tests run against the installed package, which carries the transpiled component and types', {
  skip: !installedRun && 'only meaningful against the installed tarball (.ci/hosts.sh sets AGENT_MEMORY_REPO)',
}, () => {
  const entry = realpathSync(fileURLToPath(import.meta.resolve('agent-memory')));
  const pkg = dirname(entry);
  assert.ok(pkg.split(/[\\/]/).includes('node_modules'), `agent-memory resolved to ${entry}`);
  assert.ok(!pkg.startsWith(join(REPO, 'hosts', 'node')), `agent-memory resolved into the source tree: ${entry}`);
  const files = readdirSync(join(pkg, 'gen'));
  assert.ok(files.includes('agent_memory.js'), files.join(' '));
  assert.ok(files.some((f) => f.endsWith('.wasm')), files.join(' '));
  assert.match(readFileSync(join(pkg, 'agent-memory.d.ts'), 'utf8'), /export declare class Memory/);
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  assert.equal(manifest.exports['.'].types, './agent-memory.d.ts');
});

test('the words are the WIT cases, and the runtime keeps no error kind list', () => {
  assert.deepEqual([...WRITE_TARGETS], witCases('write-target'));
  assert.deepEqual([...READ_SOURCES], witCases('read-source'));
  assert.deepEqual([...WRITE_MODES], witCases('write-mode'));
  assert.deepEqual([...SEARCH_MODES], witCases('search-mode'));
  assert.deepEqual([...TOOL_SETS], witCases('tool-set'));
  assert.deepEqual([...SECRET_POLICIES], witCases('secret-policy'));
  assert.deepEqual([...OPERATIONS], witCases('operation'));
  assert.ok(witCases('error-kind').includes('other'));
  assert.equal(api.ERROR_KINDS, undefined);
});

test('the type declarations list the WIT cases', () => {
  const dts = readFileSync(fileURLToPath(new URL('agent-memory.d.ts', import.meta.resolve('agent-memory'))), 'utf8');
  const union = (name) => {
    const m = new RegExp(`export type ${name} =([^;]*);`).exec(dts);
    assert.ok(m, `no type ${name} in agent-memory.d.ts`);
    return [...m[1].matchAll(/'([^']*)'/g)].map((q) => q[1]);
  };
  assert.deepEqual(union('WriteTarget'), witCases('write-target'));
  assert.deepEqual(union('ReadSource'), witCases('read-source'));
  assert.deepEqual(union('WriteMode'), witCases('write-mode'));
  assert.deepEqual(union('SearchMode'), witCases('search-mode'));
  assert.deepEqual(union('ToolSet'), witCases('tool-set'));
  assert.deepEqual(union('SecretPolicy'), witCases('secret-policy'));
  assert.deepEqual(union('Operation'), witCases('operation'));
  assert.deepEqual(union('Scope'), witCases('scope'));
  // The error kinds named for editors; `other` arrives as its name (string).
  assert.deepEqual(union('ErrorKind'), witCases('error-kind').filter((k) => k !== 'other'));
  assert.match(dts, /\| \(string & \{\}\);/);
});

test('the memory cap gives a module maximum that the engine enforces', () => {
  // (module (memory (export "m") 1)) and the same with a maximum of 100 pages.
  const header = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const exportM = [0x07, 0x05, 0x01, 0x01, 0x6d, 0x02, 0x00];
  const plain = Uint8Array.from([...header, 0x05, 0x03, 0x01, 0x00, 0x01, ...exportM]);
  const bounded = Uint8Array.from([...header, 0x05, 0x05, 0x01, 0x01, 0x01, 0xe4, 0x00, ...exportM]);
  const memoryOf = (bytes) => new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.m;
  assert.equal(memoryOf(plain).grow(10), 1); // unbounded before
  const capped = memoryOf(capMemories(plain, 4 * 65536));
  assert.equal(capped.grow(3), 1);
  assert.throws(() => capped.grow(1), RangeError);
  const lowered = memoryOf(capMemories(bounded, 2 * 65536));
  assert.throws(() => lowered.grow(2), RangeError);
  assert.equal(memoryOf(capMemories(bounded, 1000 * 65536)).grow(99), 1); // a lower own maximum stays
  assert.throws(() => capMemories(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]), 65536), /not a core WebAssembly module/);
});

test('history is kept: opens with `mutate-directory` (the journal) work', () => {
  // preview2-shim refused every open asking for `mutate-directory`, which
  // Rust's std asks for when it opens history's journal to add to it; the
  // host needed a workaround until it had a filesystem of its own (wasi-fs.js).
  const root = tempDir();
  writeFileSync(join(root, 'MEMORY.md'), '- planted');
  const memory = Memory.open(root, PROJECT, { now: NOW });
  assert.equal(memory.read('long-term'), '- planted');
  for (const line of ['- one', '- two', '- kept']) {
    assert.doesNotMatch(memory.write('long-term', line).message, /history did not save/);
  }
  assert.equal(readFileSync(join(root, 'MEMORY.md'), 'utf8'), '- planted\n- one\n- two\n- kept\n');
  assert.ok(memory.history('long-term').length >= 3);
  memory.close();
});

test('two handles on two roots in one instance stay independent', () => {
  const [rootA, rootB] = [tempDir(), tempDir()];
  const [a, b] = openGroup([
    { root: rootA, project: '/src/alpha', now: NOW, maxWriteBytes: 4 },
    // Lexical: by meaning, `secret` would find b's own MEMORY.md.
    { root: rootB, project: '/src/beta', now: '2026-01-02T03:04:05-08:00', semantic: false },
  ]);
  assert.ok(a.sharesInstanceWith(b));
  assert.ok(!a.sharesInstanceWith(Memory.open(tempDir(), PROJECT, { now: NOW })));
  assert.deepEqual([a.guestRoot, b.guestRoot], ['/memory-0', '/memory-1']);
  // Own project and clock.
  assert.match(a.projectSlug, /^alpha-[0-9a-f]{8}$/);
  assert.match(b.projectSlug, /^beta-[0-9a-f]{8}$/);
  assert.deepEqual([a.today, b.today], ['2026-05-30', '2026-01-02']);
  // Own limits.
  assert.deepEqual([a.limits().maxWriteBytes, b.limits().maxWriteBytes], [4, 65536]);
  assert.equal(a.write('long-term', 'only in a').truncatedFrom, 9);
  assert.equal(b.write('long-term', 'only in b').truncatedFrom, null);
  // Neither sees the other's files.
  a.write('note', 'alpha secret', 'append', 'plans');
  assert.equal(b.read('note', 'plans'), null);
  assert.throws(() => b.callTool('memory_read', { source: 'note', name: 'plans' }), (e) => e.kind === 'not-found');
  assert.deepEqual(b.search('secret').hits, []);
  assert.equal(b.search('only', 'literal').hits[0].body, 'only in b');
  assert.deepEqual(b.listFiles().map((f) => f.path), ['MEMORY.md']);
  assert.equal(readFileSync(join(rootA, 'MEMORY.md'), 'utf8'), 'only\n');
  assert.equal(readFileSync(join(rootB, 'MEMORY.md'), 'utf8'), 'only in b\n');
  // b's files: its MEMORY.md and its own history (hidden under `.store/`),
  // where nothing of a's is.
  assert.deepEqual(readdirSync(rootB).sort(), ['.store', 'MEMORY.md']);
  const bFiles = readdirSync(rootB, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  for (const f of bFiles) {
    const bytes = readFileSync(join(f.parentPath ?? f.path, f.name), 'utf8');
    assert.ok(!bytes.includes('alpha') && !bytes.includes('only in a'), f.name);
  }
  a.close();
  b.close();
});

test('close releases the handle, and the rest of the group lives on', () => {
  const [a, b] = openGroup([
    { root: tempDir(), project: PROJECT, now: NOW },
    { root: tempDir(), project: PROJECT, now: NOW },
  ]);
  a.close();
  a.close(); // idempotent
  assert.ok(a.closed);
  assert.throws(() => a.read('long-term'), /closed/);
  assert.equal(b.write('long-term', '- b').path, 'MEMORY.md');
  b[Symbol.dispose]();
  assert.ok(b.closed);
  assert.throws(() => b.contextBlock(), /closed/);
});

test('a group with bad options opens nothing', () => {
  assert.throws(
    () => openGroup([{ root: tempDir(), project: PROJECT, now: NOW }, { root: tempDir(), project: '', now: NOW }]),
    (e) => e instanceof MemoryError && e.kind === 'invalid-options',
  );
  assert.throws(() => Memory.open(tempDir(), PROJECT, { now: NOW, lockLeaseMs: 10 }), (e) => e.kind === 'invalid-options');
});

test('errors carry the WIT kind and a message', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  assert.throws(
    () => memory.write('note', 'x', 'append', '../escape'),
    (e) => e instanceof MemoryError && e.kind === 'invalid-name' && e.message.includes('../escape'),
  );
  assert.throws(() => memory.callTool('memory_teleport', {}), (e) => e.kind === 'unknown-tool');
  assert.throws(() => Memory.open(tempDir(), ''), (e) => e instanceof MemoryError && e.kind === 'invalid-options');
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
    bytesWritten: 22,
    truncatedFrom: null,
    warnings: [],
    budget: {
      indexLines: 0,
      indexMaxLines: 200,
      indexBytes: 0,
      indexMaxBytes: 25000,
      blockBytes: 0,
      blockMaxBytes: 32768,
      reach: 'not-injected',
      warning: null,
    },
    message:
      `Appended 22 bytes to ${memory.projectDir}/notes/auth.md\n` +
      'Budget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)',
  });
  assert.deepEqual(memory.listFiles(), [{ path: `${memory.projectDir}/notes/auth.md`, bytes: 22, stale: [] }]);
  const results = memory.search('rotate');
  assert.deepEqual(results.terms, [{ term: 'rotate', count: 1 }]);
  assert.equal(memory.renderSearch(results), memory.callTool('memory_search', { query: 'rotate' }));
  assert.equal(memory.estimateTokens('12345'), 2n);
  assert.equal(memory.effectiveReserve(2n ** 64n - 1n, 'xxxx'), 2n ** 64n - 1n);
  assert.equal(memory.effectiveReserve(1000, null), 1000n);
  assert.deepEqual(memory.toolDefinitions()[0].parameters.required, ['target', 'content']);
  assert.equal(memory.compactionHeading(3), 'compaction summary (3 msgs)');
  assert.deepEqual(memory.info(), { projectSlug: 'my-app-f5485506', projectDir: 'projects/my-app-f5485506', today: '2026-05-30' });
  assert.equal(memory.guestRoot, '/');
  const limits = memory.limits();
  assert.deepEqual([limits.maxInjectBytes, limits.maxWriteBytes, limits.maxQueryTerms, limits.lockWaitMs], [32768, 65536, 64, 15000]);
  assert.deepEqual([limits.historyMaxVersions, limits.historyMaxBytes], [50, 64 * 1024 * 1024]);
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
  for (const m of [west, east, live]) m.close();
});

test('a huge write hits the memory cap as a trap, and the next call works', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  memory.write('long-term', '- kept');
  assert.throws(
    () => memory.write('long-term', 'x'.repeat(300 * 1024 * 1024)),
    (e) => e instanceof MemoryTrap && e.limit === 'memory' && e.operation === 'store.write' && e.message.includes('268435456'),
  );
  // A fresh worker, with the memory reopened on the same options.
  assert.equal(memory.read('long-term'), '- kept\n');
  assert.equal(memory.today, '2026-05-30');
});

test('a ten-megabyte query of single letters is refused or answered, and the next call works', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  memory.write('long-term', 'a b c');
  const letters = Array.from({ length: 5_000_000 }, (_, i) => String.fromCodePoint(0x4e00 + (i % 20000))).join(' ');
  assert.ok(Buffer.byteLength(letters) > 10_000_000);
  for (const mode of SEARCH_MODES) {
    assert.throws(() => memory.search(letters, mode), (e) => e instanceof MemoryError && e.kind === 'invalid-arguments');
  }
  assert.throws(() => memory.callTool('memory_search', { query: letters }), (e) => e.kind === 'invalid-arguments');
  // In literal mode: ranked mode still exhausts the 256 MiB cap on a query
  // of millions of words (a MemoryTrap), a bound the guest lacks so far.
  assert.deepEqual(memory.search('a '.repeat(5_000_000), 'literal').terms, [{ term: 'a', count: 1 }]);
  assert.equal(memory.read('long-term'), 'a b c\n');
});

test('a call past its timeout ends its worker, and the next call works', () => {
  const root = tempDir();
  const daily = join(root, 'projects', 'my-app-f5485506', 'daily');
  mkdirSync(daily, { recursive: true });
  const text = `${'a '.repeat(40)}\n`.repeat(200_000);
  for (let day = 1; day <= 8; day++) writeFileSync(join(daily, `2026-05-0${day}.md`), text);
  // 64 distinct terms over 128 MB take seconds here; the bound is a fraction
  // of that, and still ample for the next call in a fresh worker.
  const memory = Memory.open(root, PROJECT, { now: NOW, callTimeoutMs: 1000 });
  const query = ['a', ...Array.from({ length: 63 }, (_, i) => `t${i}`)].join(' ');
  assert.throws(
    () => memory.search(query),
    (e) => e instanceof MemoryTrap && e.limit === 'time' && /1000 ms/.test(e.message),
  );
  assert.equal(memory.write('long-term', '- after').path, 'MEMORY.md');
  assert.equal(memory.read('long-term'), '- after\n');
});

test('a trap in one member reopens the whole group with each own options', () => {
  const [a, b] = openGroup([
    { root: tempDir(), project: PROJECT, now: NOW, maxWriteBytes: 5, maxMemoryBytes: 32 * 1024 * 1024 },
    { root: tempDir(), project: '/src/other', now: NOW },
  ]);
  assert.throws(() => a.write('long-term', 'x'.repeat(300 * 1024 * 1024)), (e) => e.limit === 'memory');
  assert.match(b.info().projectSlug, /^other-/);
  assert.deepEqual([a.limits().maxWriteBytes, b.limits().maxWriteBytes], [5, 65536]);
  a.close();
  b.close();
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
  assert.ok(!existsSync(join(memory.root, 'MEMORY.md')));
});

// -- history, the secret guard, search modes, tool sets --

// A made-up GitHub token of the right shape (the guard's own test value).
const TOKEN = 'ghp_Zq8Kd0WmX3rT5yUvB7nC1eE9fG2hJ4kL6pQs';

test('edit, rename, delete, history and restore round trip', () => {
  const root = tempDir();
  const memory = Memory.open(root, PROJECT, { now: NOW, source: 'agent-7' });
  const notes = `${memory.projectDir}/notes`;
  memory.write('note', 'Tokens rotate hourly.\nOwner: ops', 'append', 'auth');
  assert.deepEqual(memory.edit('note', 'hourly', 'daily', 'auth'), {
    path: `${notes}/auth.md`,
    line: 1,
    bytes: 32,
    warnings: [],
    budget: {
      indexLines: 0,
      indexMaxLines: 200,
      indexBytes: 0,
      indexMaxBytes: 25000,
      blockBytes: 0,
      blockMaxBytes: 32768,
      reach: 'not-injected',
      warning: null,
    },
    message: `Edited ${notes}/auth.md: replaced 6 bytes at line 1 with 5 bytes\nBudget: MEMORY.md 0/200 lines, 0/25000 bytes; context block 0/32768 bytes (notes are not in it; memory_search finds them)`,
  });
  const renamed = memory.renameNote('auth', 'infra/auth');
  assert.deepEqual([renamed.from, renamed.to], [`${notes}/auth.md`, `${notes}/infra/auth.md`]);
  const deleted = memory.deleteNote('infra/auth');
  assert.deepEqual([deleted.path, deleted.existed, deleted.bytes], [`${notes}/infra/auth.md`, true, 32]);
  assert.ok(!existsSync(join(root, notes, 'infra'))); // the emptied topic folder went too
  const again = memory.deleteNote('infra/auth');
  assert.deepEqual([again.existed, again.bytes], [false, 0]);
  assert.equal(memory.read('note', 'infra/auth'), null);

  // The old name's history: the rename replaced "daily", the edit "hourly".
  const old = memory.history('note', 'auth');
  assert.deepEqual(old.map((v) => [v.operation, v.bytes, v.otherPath]), [
    ['rename', 32, `${notes}/infra/auth.md`], ['edit', 33, null], ['append', null, null],
  ]);
  assert.ok(old.every((v) => v.source === 'agent-7' && v.path === `${notes}/auth.md`));
  assert.deepEqual([old[0].timeUnix, old[0].utcOffsetMinutes], [Date.parse(NOW) / 1000, 120]);
  assert.deepEqual(memory.history('note', 'auth', 1), old.slice(0, 1));
  // The new name's: created by the rename, then deleted.
  const fresh = memory.history('note', 'infra/auth');
  assert.deepEqual(fresh.map((v) => [v.operation, v.bytes]), [['delete', 32], ['rename', null]]);
  const last = memory.lastChange();
  assert.deepEqual(last, fresh[0]);

  // Undo the delete: the note is back, and the restore is history too.
  const restored = memory.restore(last.id);
  assert.deepEqual([restored.path, restored.bytesWritten], [`${notes}/infra/auth.md`, 32]);
  const [first, line] = restored.message.split('\n');
  assert.equal(first, `Restored ${notes}/infra/auth.md to version ${last.id} (32 bytes)`);
  assert.equal(restored.budget.reach, 'not-injected');
  assert.ok(line.endsWith('(notes are not in it; memory_search finds them)'));
  assert.equal(memory.read('note', 'infra/auth'), 'Tokens rotate daily.\nOwner: ops\n');
  assert.equal(memory.lastChange().operation, 'restore');
  // Back to before the edit, under the old name.
  memory.restore(old[1].id);
  assert.equal(memory.read('note', 'auth'), 'Tokens rotate hourly.\nOwner: ops\n');
  assert.throws(() => memory.restore('v999'), (e) => e instanceof MemoryError && e.kind === 'not-found');
  memory.close();
});

test('undo and writeIfUnchanged check their precondition under the lock', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  assert.equal(memory.undo(), null);
  for (const v of ['v1', 'v2', 'v3']) memory.write('long-term', v, 'overwrite');
  const shown = memory.lastChange();
  const undone = memory.undo(shown.id);
  assert.ok(undone.message.startsWith(
    `Undid the last change (write of MEMORY.md): Restored MEMORY.md to version ${shown.id}`), undone.message);
  assert.equal(memory.read('long-term'), 'v2\n');
  // The change shown is no longer the last: nothing is undone.
  assert.throws(() => memory.undo(shown.id), (e) => e instanceof MemoryError && e.kind === 'conflict');
  assert.ok(memory.undo().message.startsWith('Undid the last change (restore of MEMORY.md)'));
  assert.equal(memory.read('long-term'), 'v3\n');
  const base = createHash('sha256').update('v3\n').digest('hex');
  assert.ok(memory.writeIfUnchanged('long-term', 'mine', base).message.startsWith('Overwrote MEMORY.md with 5 bytes'));
  assert.throws(() => memory.writeIfUnchanged('long-term', 'theirs', base), (e) => e instanceof MemoryError && e.kind === 'conflict');
  assert.equal(memory.read('long-term'), 'mine\n');
  memory.close();
});

test('edit and rename refuse with the new kinds, and change nothing', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  memory.write('long-term', '- a\n- b\n- a');
  assert.throws(() => memory.edit('long-term', '- a', '- c'), (e) => e.kind === 'ambiguous' && e.message.includes('lines 1, 3'));
  assert.throws(() => memory.edit('long-term', '- z', '- c'), (e) => e.kind === 'not-found');
  memory.write('note', 'one', 'append', 'one');
  memory.write('note', 'two', 'append', 'two');
  assert.throws(() => memory.renameNote('one', 'two'), (e) => e.kind === 'already-exists');
  assert.throws(() => memory.renameNote('three', 'four'), (e) => e.kind === 'not-found');
  assert.throws(() => memory.history('note', 'one', 0), (e) => e.kind === 'invalid-arguments');
  assert.equal(memory.read('long-term'), '- a\n- b\n- a\n');
  assert.deepEqual([memory.read('note', 'one'), memory.read('note', 'two')], ['one\n', 'two\n']);
  memory.close();
});

test('readVersion gives the text before a change and changes nothing', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  memory.write('note', 'one\n', 'overwrite', 'a');
  memory.write('note', 'two\n', 'overwrite', 'a');
  const versions = memory.history('note', 'a');
  assert.deepEqual(versions.map((v) => v.operation), ['write', 'write']);
  assert.equal(memory.readVersion(versions[0].id), 'one\n');
  assert.equal(memory.readVersion(versions[1].id), null); // the note did not exist then
  assert.deepEqual(memory.history('note', 'a'), versions);
  assert.equal(memory.read('note', 'a'), 'two\n');
  for (const bad of ['v999', 'x', '']) {
    assert.throws(() => memory.readVersion(bad), (e) => e instanceof MemoryError && e.kind === 'not-found', bad);
  }
  memory.close();
});

test('searchTop is the head of the whole search', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  for (let i = 0; i < 8; i++) memory.write('note', 'deploy staging\n'.repeat(i + 1), 'overwrite', `n${i}`);
  for (const mode of ['ranked', 'literal']) {
    const whole = memory.search('deploy', mode);
    const page = memory.searchTop('deploy', 3, mode);
    assert.equal(whole.hits.length, 8, mode);
    assert.equal(page.total, 8, mode);
    assert.deepEqual(page.terms, whole.terms, mode);
    assert.deepEqual(page.hits, whole.hits.slice(0, 3), mode);
    assert.ok(memory.renderSearch(page).includes(whole.hits[0].path), mode);
  }
  assert.throws(() => memory.searchTop('deploy', 0), (e) => e.kind === 'invalid-arguments');
  memory.close();
});

test('the history limits are options', () => {
  const root = tempDir();
  const off = Memory.open(root, PROJECT, { now: NOW, historyMaxVersions: 0 });
  off.write('long-term', '- one');
  off.write('long-term', '- two', 'overwrite');
  assert.deepEqual(off.history('long-term'), []);
  assert.equal(off.lastChange(), null);
  off.close();
  const two = Memory.open(root, PROJECT, { now: NOW, historyMaxVersions: 2, historyMaxBytes: 2n ** 40n });
  assert.equal(two.limits().historyMaxBytes, 2 ** 40);
  for (let i = 0; i < 4; i++) two.write('long-term', `- ${i}`, 'overwrite');
  assert.deepEqual(two.history('long-term').map((v) => v.bytes), [4, 4]);
  two.close();
});

test('a secret is refused under block, the default', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  memory.write('long-term', '- deploys need a token');
  for (const write of [
    () => memory.write('long-term', `- token ${TOKEN}`),
    () => memory.edit('long-term', 'a token', TOKEN),
    () => memory.callTool('memory_write', { target: 'note', name: 'n', content: TOKEN }),
  ]) {
    assert.throws(write, (e) => e instanceof MemoryError && e.kind === 'secret-detected'
      && e.message.includes('github-pat on line 1') && !e.message.includes(TOKEN.slice(4)));
  }
  assert.equal(memory.read('long-term'), '- deploys need a token\n');
  assert.equal(memory.read('note', 'n'), null);
  assert.deepEqual(memory.scanSecrets(), []);
  memory.close();
});

test('a secret is redacted under redact, and found by the scan under off', () => {
  const root = tempDir();
  const redact = Memory.open(root, PROJECT, { now: NOW, secretPolicy: 'redact' });
  const receipt = redact.write('long-term', `- token ${TOKEN}`);
  assert.deepEqual(receipt.warnings, [
    'redacted 1 secret value(s) before storing (github-pat on line 1): store where a secret lives, never the value',
  ]);
  assert.ok(receipt.message.includes(receipt.warnings[0]));
  assert.equal(redact.read('long-term'), '- token [REDACTED:github-pat]\n');
  redact.close();
  const off = Memory.open(root, PROJECT, { now: NOW, secretPolicy: 'off' });
  assert.deepEqual(off.write('note', `old\nkey ${TOKEN}`, 'append', 'legacy').warnings, []);
  assert.deepEqual(off.scanSecrets(), [
    { path: `${off.projectDir}/notes/legacy.md`, line: 2, ruleId: 'github-pat', masked: 'ghp_…', version: null },
  ]);
  // Edited out, the token is still in the version history saved ...
  off.write('note', 'old\nkey in the vault', 'overwrite', 'legacy');
  assert.deepEqual(off.scanSecrets(), [
    { path: `${off.projectDir}/notes/legacy.md`, line: 2, ruleId: 'github-pat', masked: 'ghp_…', version: 'v3' },
  ]);
  // ... until a purge redacts it there, keeping the version.
  assert.deepEqual(off.purgeSecrets(), { versions: 1, secrets: 1, appendsSaved: 0 });
  assert.deepEqual(off.scanSecrets(), []);
  assert.deepEqual(off.history('note', 'legacy').map((v) => v.id), ['v3', 'v2']);
  off.close();
});

test('a bad policy, source, mode or set is refused', () => {
  assert.throws(() => Memory.open(tempDir(), PROJECT, { now: NOW, secretPolicy: 'warn' }), (e) => e.kind === 'invalid-options');
  assert.throws(() => Memory.open(tempDir(), PROJECT, { now: NOW, source: 'agent\nsession' }), (e) => e.kind === 'invalid-options');
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  assert.throws(() => memory.search('x', 'fuzzy'), (e) => e.kind === 'invalid-mode');
  assert.throws(() => memory.toolDefinitions('all'), (e) => e.kind === 'invalid-arguments');
  memory.close();
});

test('search in both modes', () => {
  // Lexical, as `rot` below expects: semantic recall has its own tests.
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW, semantic: false });
  memory.write('note', 'The deployScript rotates keys.', 'append', 'ops');
  memory.write('long-term', '- rotating logs daily');
  const ops = `${memory.projectDir}/notes/ops.md`;
  // Ranked matches words (stemmed), never parts of words; ranked is the default.
  const ranked = memory.search('rotate');
  assert.deepEqual(ranked, memory.search('rotate', 'ranked'));
  assert.deepEqual(ranked.terms, [{ term: 'rotate', count: 2 }]);
  assert.deepEqual(ranked.hits.map((h) => h.path).sort(), ['MEMORY.md', ops]);
  assert.deepEqual(memory.search('rot').hits, []);
  // Literal is the seeds' substring search.
  const literal = memory.search('rotate', 'literal');
  assert.deepEqual(literal.terms, [{ term: 'rotate', count: 1 }]);
  assert.deepEqual(literal.hits.map((h) => h.path), [ops]);
  assert.deepEqual(memory.search('rot', 'literal').hits.map((h) => h.path), ['MEMORY.md', ops]);
  // The tool's default is ranked too, and renders as renderSearch does.
  assert.equal(memory.callTool('memory_search', { query: 'rotate' }), memory.renderSearch(ranked));
  assert.equal(memory.callTool('memory_search', { query: 'rot', mode: 'literal' }), memory.renderSearch(memory.search('rot', 'literal')));
  memory.close();
});

test('the three tool sets', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW });
  const seed = ['memory_write', 'memory_read', 'memory_search'];
  const full = [...seed, 'memory_edit', 'memory_delete', 'memory_rename', 'memory_history', 'memory_restore', 'memory_refresh', 'memory_batch', 'memory_consolidate'];
  assert.deepEqual(memory.toolDefinitions('seed').map((d) => d.name), seed);
  assert.deepEqual(memory.toolDefinitions('full').map((d) => d.name), full);
  assert.deepEqual(memory.toolDefinitions().map((d) => d.name), full);
  const [anthropic, ...rest] = memory.toolDefinitions('anthropic');
  assert.deepEqual([anthropic.name, rest.length], ['memory', 0]);
  assert.deepEqual(anthropic.parameters.required, ['command']);
  const prompts = Object.fromEntries(TOOL_SETS.map((s) => [s, memory.usagePrompt(s)]));
  assert.equal(memory.usagePrompt(), prompts.full);
  assert.equal(new Set(Object.values(prompts)).size, 3);
  assert.ok(prompts.full.includes('memory_edit') && !prompts.seed.includes('memory_edit'));
  assert.ok(prompts.anthropic.includes('/memories') && !prompts.anthropic.includes('memory_write'));
  // Every tool runs whatever set the model was given.
  memory.callTool('memory', { command: 'create', path: '/memories/plan.md', file_text: '- ship' });
  assert.equal(memory.read('note', 'plan'), '- ship\n');
  memory.close();
});

test('a team directory gives team scope and snapshots', () => {
  const dir = tempDir();
  const team = join(dir, 'repo', api.TEAM_DIR_NAME);
  const alice = Memory.open(join(dir, 'alice'), PROJECT, { now: NOW, teamDir: team });
  try {
    alice.write('note', 'Run make ship.\n', 'append', 'deploy');
    const reply = alice.callTool('memory_write', { target: 'long_term', content: '- shared', scope: 'team' });
    assert.equal(reply, 'Appended 9 bytes to team:MEMORY.md\nBudget: team MEMORY.md 1/200 lines, 9/25000 bytes; team section of the context block 133/32768 bytes');
    const info = alice.takeSnapshot();
    assert.equal(info.notes, 1);
    assert.equal(info.utcOffsetMinutes, 120);
  } finally {
    alice.close();
  }
  assert.equal(readFileSync(join(team, 'MEMORY.md'), 'utf8'), '- shared\n');
  assert.equal(readFileSync(join(team, 'snapshot', 'notes', 'deploy.md'), 'utf8'), 'Run make ship.\n');
  const bob = Memory.open(join(dir, 'bob'), PROJECT, { now: NOW, teamDir: team, scope: 'team' });
  try {
    assert.equal(bob.write('note', 'shared note\n', 'append', 'ops').path, 'team:notes/ops.md');
    assert.throws(() => bob.write('scratchpad', '- [ ] mine'), (e) => e instanceof MemoryError && e.kind === 'invalid-target');
    assert.equal(bob.applySnapshot().notes, 1);
  } finally {
    bob.close();
  }
  const carol = Memory.open(join(dir, 'carol'), PROJECT, { now: NOW });
  try {
    assert.throws(
      () => carol.callTool('memory_read', { source: 'list', scope: 'team' }),
      (e) => e instanceof MemoryError && e.kind === 'no-team-dir',
    );
  } finally {
    carol.close();
  }
});

test('a team directory that is a symbolic link is refused, naming the link', { skip: process.platform === 'win32' }, () => {
  // The team directory is preopened read-write: a link there (to another
  // folder, to `/`, or dangling) would give its target the team's files.
  const dir = tempDir();
  const project = join(dir, 'repo');
  mkdirSync(project);
  const elsewhere = join(dir, 'elsewhere');
  mkdirSync(elsewhere);
  const dangling = join(dir, 'not-yet');
  const link = join(project, api.TEAM_DIR_NAME);
  for (const target of [elsewhere, '/', dangling]) {
    symlinkSync(target, link);
    for (const given of [link, `${link}/.`]) {
      assert.throws(
        () => Memory.open(join(dir, 'root'), PROJECT, { now: NOW, teamDir: given }),
        (e) => e instanceof MemoryError && e.kind === 'invalid-options'
          && e.message.includes(`\`${link}\``)
          && e.message.includes('symbolic link')
          && e.message.includes('replace the link with a real folder'),
      );
    }
    rmSync(link);
  }
  assert.equal(existsSync(dangling), false);
  assert.deepEqual(readdirSync(elsewhere), []);
  // A real folder (created when missing) is the team directory.
  const memory = Memory.open(join(dir, 'root'), PROJECT, { now: NOW, teamDir: link, scope: 'team' });
  try {
    memory.write('note', 'hi', 'append', 'x');
  } finally {
    memory.close();
  }
  assert.equal(readFileSync(join(link, 'notes', 'x.md'), 'utf8'), 'hi\n');
});

test('the review gate queues the model\'s write until it is approved', () => {
  const memory = Memory.open(tempDir(), PROJECT, { now: NOW, review: ['personal'] });
  const reply = memory.callTool('memory_write', { target: 'long_term', content: 'Push to main.' });
  assert.ok(reply.startsWith('Queued for review as p1'), reply);
  assert.equal(memory.contextBlock(), null);
  const [pending] = memory.pendingChanges();
  assert.deepEqual([pending.id, pending.tool, pending.scope], ['p1', 'memory_write', 'personal']);
  assert.ok(pending.diff.includes('+Push to main.'), pending.diff);
  assert.ok(memory.approve('p1').startsWith('Appended'));
  assert.ok(memory.contextBlock().includes('Push to main.'));
  assert.throws(() => memory.reject('p1'), (e) => e.kind === 'invalid-arguments');
  assert.deepEqual(memory.clear('long_term'), ['MEMORY.md']);
  assert.equal(memory.contextBlock(), null);
});
