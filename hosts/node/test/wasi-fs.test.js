// The host's own wasi:filesystem (wasi-fs.js), called as the glue calls it:
// the sandbox (no absolute paths, no `..` or symlink out of a descriptor's
// directory), the read-only project preopen, the shim's stream classes, and
// descriptors closed on dispose.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, symlinkSync, readdirSync, rmSync,
  realpathSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from '@bytecodealliance/preview2-shim';
import { createFilesystem, resolveIn } from 'agent-memory/wasi-fs';

const scratch = [];
const tempDir = () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'agent-memory-wasi-fs-')));
  scratch.push(dir);
  return dir;
};
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const FOLLOW = { symlinkFollow: true };
const NOFOLLOW = { symlinkFollow: false };
const READ = { read: true };
const WRITE = { read: true, write: true };
const CREATE = { create: true };
const NONE = {};

// A root with a file and a subdirectory, and a directory outside it with a
// secret: the preopen `/` is the root, `/project` the read-only project.
function setup() {
  const base = tempDir();
  const root = join(base, 'root');
  const outside = join(base, 'outside');
  const project = join(base, 'project');
  for (const d of [root, outside, project, join(root, 'sub')]) mkdirSync(d);
  writeFileSync(join(root, 'inside.md'), 'inside');
  writeFileSync(join(outside, 'secret.md'), 'top secret');
  writeFileSync(join(project, 'README.md'), 'readme');
  const fs = createFilesystem({ preopens: { '/': root, '/project': project }, readOnly: ['/project'], io });
  const [[rootDir], [projectDir]] = fs.preopens.getDirectories();
  return { base, root, outside, project, fs, rootDir, projectDir };
}

// The WASI error code `fn` throws (a string), or fails.
function code(fn) {
  try {
    fn();
  } catch (e) {
    assert.equal(typeof e, 'string', `expected a WASI error code, got ${e}`);
    return e;
  }
  assert.fail('expected a refusal');
}

const readAll = (d) => {
  const [bytes] = d.read(1000n, 0n);
  return new TextDecoder().decode(bytes);
};

test('a file inside the root reads and writes (the refusals below are not everything refused)', () => {
  const { root, rootDir } = setup();
  const f = rootDir.openAt(FOLLOW, 'sub/../inside.md', NONE, READ);
  assert.equal(readAll(f), 'inside');
  f[Symbol.dispose]();
  const g = rootDir.openAt(NOFOLLOW, 'sub/new.md', CREATE, WRITE);
  assert.equal(g.write(new TextEncoder().encode('new'), 0n), 3n);
  g[Symbol.dispose]();
  assert.equal(readFileSync(join(root, 'sub', 'new.md'), 'utf8'), 'new');
  // A symlink that stays inside is followed.
  symlinkSync('inside.md', join(root, 'alias.md'));
  const h = rootDir.openAt(FOLLOW, 'alias.md', NONE, READ);
  assert.equal(readAll(h), 'inside');
  h[Symbol.dispose]();
  symlinkSync('../inside.md', join(root, 'sub', 'up.md'));
  assert.equal(rootDir.statAt(FOLLOW, 'sub/up.md').type, 'regular-file');
  assert.equal(rootDir.statAt(NOFOLLOW, 'sub/up.md').type, 'symbolic-link');
});

test('a symlink inside the root pointing outside is not followed out: reads and writes refused', () => {
  const { root, outside, rootDir } = setup();
  symlinkSync(join(outside, 'secret.md'), join(root, 'abs-file.md'));
  symlinkSync(outside, join(root, 'abs-dir'));
  symlinkSync('../outside/secret.md', join(root, 'rel-file.md'));
  symlinkSync('../outside', join(root, 'rel-dir'));
  symlinkSync('../../outside', join(root, 'sub', 'deep-dir'));
  for (const path of ['abs-file.md', 'rel-file.md', 'abs-dir/secret.md', 'rel-dir/secret.md', 'sub/deep-dir/secret.md']) {
    assert.equal(code(() => rootDir.openAt(FOLLOW, path, NONE, READ)), 'not-permitted', path);
    assert.equal(code(() => rootDir.statAt(FOLLOW, path)), 'not-permitted', path);
    assert.equal(code(() => rootDir.metadataHashAt(FOLLOW, path)), 'not-permitted', path);
    assert.equal(code(() => rootDir.openAt(FOLLOW, path, { truncate: true }, WRITE)), 'not-permitted', path);
    assert.equal(code(() => rootDir.openAt(FOLLOW, path, CREATE, WRITE)), 'not-permitted', path);
  }
  for (const path of ['abs-dir/new.md', 'rel-dir/new.md', 'sub/deep-dir/new.md']) {
    assert.equal(code(() => rootDir.openAt(NOFOLLOW, path, CREATE, WRITE)), 'not-permitted', path);
    assert.equal(code(() => rootDir.createDirectoryAt(path)), 'not-permitted', path);
    assert.equal(code(() => rootDir.renameAt('inside.md', rootDir, path)), 'not-permitted', path);
  }
  assert.equal(code(() => rootDir.openAt(FOLLOW, 'abs-dir', { directory: true }, READ)), 'not-permitted');
  // Not following the final link: it is opened as itself (O_NOFOLLOW), never its target.
  assert.equal(code(() => rootDir.openAt(NOFOLLOW, 'abs-file.md', NONE, READ)), 'loop');
  assert.equal(rootDir.statAt(NOFOLLOW, 'abs-file.md').type, 'symbolic-link');
  // Unlinking the link removes the link, not the target.
  rootDir.unlinkFileAt('abs-file.md');
  assert.equal(readFileSync(join(outside, 'secret.md'), 'utf8'), 'top secret');
  assert.deepEqual(readdirSync(outside), ['secret.md']);
});

test('`..` escapes are refused, from a preopen and from a directory opened under it', () => {
  const { base, root, outside, rootDir } = setup();
  const escapes = ['..', '../outside/secret.md', 'sub/../../outside/secret.md', 'sub/../..', './../root/inside.md'];
  for (const path of escapes) {
    assert.equal(code(() => rootDir.openAt(FOLLOW, path, NONE, READ)), 'not-permitted', path);
    assert.equal(code(() => rootDir.statAt(FOLLOW, path)), 'not-permitted', path);
    assert.equal(code(() => rootDir.openAt(NOFOLLOW, path, CREATE, WRITE)), 'not-permitted', path);
    assert.equal(code(() => rootDir.unlinkFileAt(path)), 'not-permitted', path);
    assert.equal(code(() => rootDir.removeDirectoryAt(path)), 'not-permitted', path);
    assert.equal(code(() => rootDir.readlinkAt(path)), 'not-permitted', path);
  }
  assert.equal(code(() => rootDir.createDirectoryAt('../made')), 'not-permitted');
  assert.equal(code(() => rootDir.renameAt('inside.md', rootDir, '../moved.md')), 'not-permitted');
  assert.equal(code(() => rootDir.renameAt('../outside/secret.md', rootDir, 'stolen.md')), 'not-permitted');
  // A descriptor for a subdirectory is a sandbox of its own: no `..` to its parent.
  const sub = rootDir.openAt(NOFOLLOW, 'sub', { directory: true }, READ);
  assert.equal(code(() => sub.openAt(FOLLOW, '../inside.md', NONE, READ)), 'not-permitted');
  assert.equal(sub.openAt(NOFOLLOW, 'x.md', CREATE, WRITE).getType(), 'regular-file');
  sub[Symbol.dispose]();
  assert.deepEqual(readdirSync(base).sort(), ['outside', 'project', 'root']);
  assert.deepEqual(readdirSync(outside), ['secret.md']);
  assert.ok(existsSync(join(root, 'inside.md')));
});

test('absolute paths are refused', () => {
  const { outside, rootDir } = setup();
  const secret = join(outside, 'secret.md');
  assert.equal(code(() => rootDir.openAt(FOLLOW, secret, NONE, READ)), 'not-permitted');
  assert.equal(code(() => rootDir.openAt(FOLLOW, '/etc/passwd', NONE, READ)), 'not-permitted');
  assert.equal(code(() => rootDir.openAt(NOFOLLOW, join(outside, 'new.md'), CREATE, WRITE)), 'not-permitted');
  assert.equal(code(() => rootDir.statAt(FOLLOW, '/')), 'not-permitted');
  assert.equal(code(() => rootDir.createDirectoryAt(join(outside, 'made'))), 'not-permitted');
  assert.equal(code(() => rootDir.unlinkFileAt(secret)), 'not-permitted');
  assert.equal(code(() => rootDir.renameAt('inside.md', rootDir, join(outside, 'moved.md'))), 'not-permitted');
  assert.deepEqual(readdirSync(outside), ['secret.md']);
  // And the resolver alone, for a path a method might pass on unchecked.
  assert.throws(() => resolveIn('/tmp', '/etc'), (e) => e === 'not-permitted');
});

test('the read-only project refuses every mutation with `read-only`', () => {
  const { project, rootDir, projectDir } = setup();
  mkdirSync(join(project, 'docs'));
  const before = () => JSON.stringify([readdirSync(project).sort(), readFileSync(join(project, 'README.md'), 'utf8')]);
  const was = before();
  // Reads work.
  const readme = projectDir.openAt(FOLLOW, 'README.md', NONE, READ);
  assert.equal(readAll(readme), 'readme');
  assert.deepEqual(readme.getFlags(), { read: true });
  assert.deepEqual(projectDir.getFlags(), { read: true });
  const docs = projectDir.openAt(FOLLOW, 'docs', { directory: true }, { read: true, mutateDirectory: true });
  const refusals = {
    'open create': () => projectDir.openAt(NOFOLLOW, 'new.md', CREATE, READ),
    'open truncate': () => projectDir.openAt(FOLLOW, 'README.md', { truncate: true }, READ),
    'open write': () => projectDir.openAt(FOLLOW, 'README.md', NONE, WRITE),
    'open create below': () => docs.openAt(NOFOLLOW, 'new.md', CREATE, WRITE),
    write: () => readme.write(new Uint8Array([1]), 0n),
    'write stream': () => readme.writeViaStream(0n),
    'append stream': () => readme.appendViaStream(),
    'set size': () => readme.setSize(0n),
    'set times': () => readme.setTimes({ tag: 'now' }, { tag: 'now' }),
    sync: () => readme.sync(),
    'sync data': () => readme.syncData(),
    'sync dir': () => projectDir.sync(),
    'create directory': () => projectDir.createDirectoryAt('made'),
    'create directory below': () => docs.createDirectoryAt('made'),
    'remove directory': () => projectDir.removeDirectoryAt('docs'),
    unlink: () => projectDir.unlinkFileAt('README.md'),
    'rename within': () => projectDir.renameAt('README.md', projectDir, 'moved.md'),
    'rename out': () => projectDir.renameAt('README.md', rootDir, 'stolen.md'),
    'rename in': () => rootDir.renameAt('inside.md', projectDir, 'planted.md'),
    'set times at': () => projectDir.setTimesAt(FOLLOW, 'README.md', { tag: 'now' }, { tag: 'now' }),
    link: () => projectDir.linkAt(FOLLOW, 'README.md', projectDir, 'hard.md'),
    symlink: () => projectDir.symlinkAt('README.md', 'soft.md'),
  };
  for (const [what, fn] of Object.entries(refusals)) assert.equal(code(fn), 'read-only', what);
  readme[Symbol.dispose]();
  docs[Symbol.dispose]();
  assert.equal(before(), was);
  assert.deepEqual(readdirSync(join(project, 'docs')), []);
});

test('file streams are the shim\'s classes, read and write on this thread, and dispose closes the fd', () => {
  const { root, rootDir } = setup();
  const f = rootDir.openAt(NOFOLLOW, 'streamed.md', CREATE, WRITE);
  const out = f.writeViaStream(0n);
  assert.ok(out instanceof io.streams.OutputStream);
  assert.ok(out.subscribe() instanceof io.poll.Pollable);
  assert.equal(typeof out.checkWrite(), 'bigint');
  out.write(new TextEncoder().encode('hello '));
  out.blockingWriteAndFlush(new TextEncoder().encode('world'));
  out.blockingFlush();
  out[Symbol.dispose]();
  const app = f.appendViaStream();
  app.write(new TextEncoder().encode('!'));
  app[Symbol.dispose]();
  assert.equal(readFileSync(join(root, 'streamed.md'), 'utf8'), 'hello world!');
  const input = f.readViaStream(6n);
  assert.ok(input instanceof io.streams.InputStream);
  assert.ok(input.subscribe() instanceof io.poll.Pollable);
  assert.equal(new TextDecoder().decode(input.blockingRead(100n)), 'world!');
  assert.deepEqual(code2(() => input.blockingRead(100n)), { tag: 'closed' });
  input[Symbol.dispose]();
  // A file larger than one read, read to its end in pieces.
  const big = 'x'.repeat(300_000) + 'end';
  writeFileSync(join(root, 'big.md'), big);
  const b = rootDir.openAt(NOFOLLOW, 'big.md', NONE, READ);
  const whole = b.readViaStream(0n);
  const parts = [];
  for (;;) {
    try {
      parts.push(whole.blockingRead(1n << 62n));
    } catch (e) {
      assert.deepEqual(e, { tag: 'closed' });
      break;
    }
  }
  assert.equal(Buffer.concat(parts).toString(), big);
  b[Symbol.dispose]();
  const stat = f.stat();
  assert.equal(stat.size, 12n);
  assert.equal(typeof stat.dataModificationTimestamp.seconds, 'bigint');
  assert.equal(typeof stat.dataModificationTimestamp.nanoseconds, 'number');
  const fds = openFds();
  f[Symbol.dispose]();
  if (fds !== null) assert.equal(openFds(), fds - 1);
  assert.equal(code(() => f.read(1n, 0n)), 'bad-descriptor');
  f[Symbol.dispose](); // idempotent
  const entries = [];
  const dir = rootDir.readDirectory();
  for (let e = dir.readDirectoryEntry(); e !== undefined; e = dir.readDirectoryEntry()) entries.push(e);
  assert.deepEqual(entries.map((e) => e.name).sort(), ['big.md', 'inside.md', 'streamed.md', 'sub']);
  assert.equal(entries.find((e) => e.name === 'sub').type, 'directory');
  assert.equal(code(() => rootDir.openAt(NOFOLLOW, 'missing.md', NONE, READ)), 'no-entry');
  assert.equal(code(() => rootDir.openAt(NOFOLLOW, 'inside.md', { create: true, exclusive: true }, WRITE)), 'exist');
  assert.equal(code(() => rootDir.removeDirectoryAt('inside.md')), 'not-directory');
  assert.equal(code(() => rootDir.openAt(NOFOLLOW, 'inside.md/x', NONE, READ)), 'not-directory');
});

function code2(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
}

// The number of open fds (Linux), or null where there is no /proc.
function openFds() {
  return existsSync('/proc/self/fd') ? readdirSync('/proc/self/fd').length : null;
}
