// A synchronous `wasi:filesystem` (types and preopens, 0.2.0 and 0.2.12) on
// `node:fs`, for the worker thread that runs the component.
//
// Why: preview2-shim 0.26.1 sends every filesystem call but stat-at (open,
// close, read, write, stat, metadata-hash, sync, stream reads and writes)
// to its own I/O thread and blocks in `Atomics.wait` for the answer, most
// of a warm write's time (docs/hosts.md has the numbers). Here every call is
// a `node:fs` *Sync call on the worker's own thread.
//
// The sandbox: the guest reaches nothing but the preopened directories.
// Every guest path is resolved relative to the descriptor it is given with,
// component by component with `lstat`: an absolute path, a `..` that leaves
// the descriptor's directory, and a symlink whose target is absolute or
// leaves that directory are refused with `not-permitted`; a final symlink is
// followed only with the `symlink-follow` path flag. Files are then opened
// with O_NOFOLLOW, since the resolved path has no symlink left in it. This
// is a check in JavaScript before each call, not the kernel's `openat`
// confinement wasmtime has (Node has no `openat`): a directory swapped for a
// symlink by another process between the check and the call is not caught.
// The guest itself cannot race it (it is single-threaded and blocked while
// the host works).
//
// A read-only preopen (the project directory) refuses every mutation with
// `read-only`, as a wasmtime read-only preopen does: writes, creates,
// truncates, renames, removals, syncs, and opens asking for any of them.
//
// File streams and their pollables must be instances of the shim's classes
// (jco's glue checks `instanceof` on resources of `wasi:io`), so they are
// objects of those prototypes with their own methods, never touching the
// shim's I/O thread.

import {
  openSync, closeSync, readSync, writeSync, fstatSync, fsyncSync, fdatasyncSync, ftruncateSync,
  lstatSync, statSync, readlinkSync, realpathSync, mkdirSync, rmdirSync, renameSync, unlinkSync,
  readdirSync, constants,
} from 'node:fs';
import { resolve as resolvePath } from 'node:path';

const MAX_SYMLINKS = 40;
const CHECK_WRITE = 1n << 20n;
// The most one read returns (a short read is allowed; the guest reads on).
const READ_MAX = 16 << 20;
const {
  O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_EXCL, O_TRUNC, O_DIRECTORY,
} = constants;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_CLOEXEC = constants.O_CLOEXEC ?? 0;

// Node's errno codes as WASI's `error-code` names; anything else is a bug
// and traps.
const CODES = {
  EACCES: 'access', EAGAIN: 'would-block', EWOULDBLOCK: 'would-block', EALREADY: 'already',
  EBADF: 'bad-descriptor', EBUSY: 'busy', EDEADLK: 'deadlock', EDQUOT: 'quota', EEXIST: 'exist',
  EFBIG: 'file-too-large', EILSEQ: 'illegal-byte-sequence', EINPROGRESS: 'in-progress',
  EINTR: 'interrupted', EINVAL: 'invalid', EIO: 'io', EISDIR: 'is-directory', ELOOP: 'loop',
  EMLINK: 'too-many-links', EMSGSIZE: 'message-size', ENAMETOOLONG: 'name-too-long',
  ENODEV: 'no-device', ENOENT: 'no-entry', ENOLCK: 'no-lock', ENOMEM: 'insufficient-memory',
  ENOSPC: 'insufficient-space', ENOTDIR: 'not-directory', ERR_FS_EISDIR: 'not-directory',
  ENOTEMPTY: 'not-empty', ENOTRECOVERABLE: 'not-recoverable', ENOTSUP: 'unsupported',
  EOPNOTSUPP: 'unsupported', ENOTTY: 'no-tty', ENXIO: 'no-such-device', EOVERFLOW: 'overflow',
  EPERM: 'not-permitted', EPIPE: 'pipe', EROFS: 'read-only', ESPIPE: 'invalid-seek',
  ETXTBSY: 'text-file-busy', EXDEV: 'cross-device', ERR_INVALID_ARG_VALUE: 'invalid',
};

/** The WASI error code of a `node:fs` error; other errors are rethrown (a trap). */
export function errorCode(e) {
  const code = CODES[e?.code];
  if (code === undefined) throw e;
  return code;
}

function fsCall(fn) {
  try {
    return fn();
  } catch (e) {
    throw typeof e === 'string' ? e : errorCode(e);
  }
}

function typeOf(stats) {
  if (stats.isFile()) return 'regular-file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symbolic-link';
  if (stats.isSocket()) return 'socket';
  if (stats.isFIFO()) return 'fifo';
  if (stats.isCharacterDevice()) return 'character-device';
  if (stats.isBlockDevice()) return 'block-device';
  return 'unknown';
}

const NS = 1_000_000_000n;
const timestamp = (ns) => ({ seconds: ns / NS, nanoseconds: Number(ns % NS) });

function statOf(stats) {
  return {
    type: typeOf(stats),
    linkCount: stats.nlink,
    size: stats.size,
    dataAccessTimestamp: timestamp(stats.atimeNs),
    dataModificationTimestamp: timestamp(stats.mtimeNs),
    statusChangeTimestamp: timestamp(stats.ctimeNs),
  };
}

/**
 * The host path of `path` under the host directory `base` (a real path,
 * no symlinks in it), or a thrown WASI error code. Nothing outside `base`
 * is ever named: absolute paths, `..` past `base`, and symlinks with an
 * absolute target or one leading out of `base` are `not-permitted`. The
 * final component is followed when it is a symlink only if `followFinal`
 * (or the path ends in `/`). A missing final component is fine (for
 * create); a missing or non-directory intermediate one is `no-entry` or
 * `not-directory`.
 */
export function resolveIn(base, path, followFinal) {
  if (typeof path !== 'string' || path.includes('\0')) throw 'invalid';
  if (path.startsWith('/')) throw 'not-permitted';
  const trailingSlash = path.endsWith('/');
  const stack = [];
  let pending = path.split('/');
  let links = 0;
  while (pending.length > 0) {
    const segment = pending.shift();
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (stack.pop() === undefined) throw 'not-permitted';
      continue;
    }
    const host = `${base}/${[...stack, segment].join('/')}`;
    const last = pending.every((s) => s === '' || s === '.');
    // Not throwing for a missing entry: an exception costs ten times the call.
    const stats = fsCall(() => lstatSync(host, { throwIfNoEntry: false }));
    if (stats === undefined) {
      if (!last) throw 'no-entry';
      stack.push(segment);
      break;
    }
    if (stats.isSymbolicLink() && (!last || followFinal || trailingSlash)) {
      if (++links > MAX_SYMLINKS) throw 'loop';
      const target = fsCall(() => readlinkSync(host));
      if (target.startsWith('/')) throw 'not-permitted';
      // Relative to the link's directory: `stack` as it stands.
      pending = [...target.split('/'), ...pending];
      continue;
    }
    if (!last && !stats.isDirectory() && !stats.isSymbolicLink()) throw 'not-directory';
    stack.push(segment);
  }
  const host = stack.length === 0 ? base : `${base}/${stack.join('/')}`;
  return trailingSlash ? `${host}/` : host;
}

const closer = new FinalizationRegistry((file) => {
  if (file.fd >= 0) {
    try {
      closeSync(file.fd);
    } catch {
      // already gone
    }
    file.fd = -1;
  }
});

/** What every descriptor and its streams share: the open fd, -1 once closed. */
function liveFd(file) {
  if (file.fd < 0) throw 'bad-descriptor';
  return file.fd;
}

function makeStreams(io) {
  const { InputStream, OutputStream } = io.streams;
  const { Pollable } = io.poll;
  const IoError = io.error.Error;

  // File streams are always ready: a pollable that never waits.
  function readyPollable() {
    const pollable = Object.create(Pollable.prototype);
    Object.assign(pollable, { ready: () => true, block() {}, [Symbol.dispose]() {} });
    return pollable;
  }

  function failed(e) {
    const error = new IoError(e);
    return { tag: 'last-operation-failed', val: error };
  }

  function inputStream(file, offset) {
    let position = offset;
    const stream = Object.create(InputStream.prototype);
    const read = (len) => {
      if (file.fd < 0) throw { tag: 'closed' };
      let got;
      let n;
      let buf;
      try {
        // No bigger a buffer than what is left (the guest asks for a lot):
        // at least a page, to see a file that grew or its end.
        const left = fstatSync(file.fd).size - position;
        n = Math.min(Number(len), READ_MAX, Math.max(left, 4096));
        buf = new Uint8Array(n);
        got = readSync(file.fd, buf, 0, n, position);
      } catch (e) {
        throw failed(e);
      }
      if (got === 0 && n > 0) throw { tag: 'closed' };
      position += got;
      return got === n ? buf : buf.subarray(0, got);
    };
    const skip = (len) => {
      if (file.fd < 0) throw { tag: 'closed' };
      let size;
      try {
        size = fstatSync(file.fd).size;
      } catch (e) {
        throw failed(e);
      }
      const n = Math.max(0, Math.min(Number(len), size - position));
      if (n === 0 && Number(len) > 0) throw { tag: 'closed' };
      position += n;
      return BigInt(n);
    };
    Object.assign(stream, {
      read,
      blockingRead: read,
      skip,
      blockingSkip: skip,
      subscribe: readyPollable,
      [Symbol.dispose]() {},
    });
    return stream;
  }

  // `offset` null: append (the end of the file at each write).
  function outputStream(file, offset) {
    let position = offset;
    const stream = Object.create(OutputStream.prototype);
    const write = (buf) => {
      if (file.fd < 0) throw { tag: 'closed' };
      try {
        const at = position ?? fstatSync(file.fd).size;
        let done = 0;
        while (done < buf.byteLength) {
          done += writeSync(file.fd, buf, done, buf.byteLength - done, at + done);
        }
        if (position !== null) position += done;
      } catch (e) {
        throw failed(e);
      }
    };
    const flush = () => {
      if (file.fd < 0) throw { tag: 'closed' };
    };
    Object.assign(stream, {
      checkWrite() {
        if (file.fd < 0) throw { tag: 'closed' };
        return CHECK_WRITE;
      },
      write,
      blockingWriteAndFlush: write,
      flush,
      blockingFlush: flush,
      writeZeroes: (len) => write(new Uint8Array(Number(len))),
      blockingWriteZeroesAndFlush: (len) => write(new Uint8Array(Number(len))),
      subscribe: readyPollable,
      [Symbol.dispose]() {},
    });
    return stream;
  }

  return { inputStream, outputStream };
}

/**
 * `{ types, preopens }` for `new WASIShim({ filesystem })`. `preopens` maps
 * each guest path to a host directory; guest paths in `readOnly` get
 * descriptors that refuse every mutation with `read-only`. `io` is the
 * shim's `io` (its stream, poll and error classes).
 */
export function createFilesystem({ preopens, readOnly = [], io }) {
  const { inputStream, outputStream } = makeStreams(io);
  const readOnlyPaths = new Set(readOnly);

  class Descriptor {
    // The host path: a real path for directories (no symlinks in it).
    #path;
    // `{ fd }` (-1 when there is none or it is closed); null for a preopen.
    #file = null;
    #type;
    #flags;
    #readOnly;

    static _make(path, file, type, flags, readOnlyFlag) {
      const d = new Descriptor();
      d.#path = path;
      d.#file = file;
      d.#type = type;
      d.#flags = flags;
      d.#readOnly = readOnlyFlag;
      if (file) closer.register(d, file, file);
      return d;
    }

    #mutating() {
      if (this.#readOnly) throw 'read-only';
    }

    #dir() {
      if (this.#type !== 'directory') throw 'not-directory';
      return this.#path;
    }

    #fd() {
      if (!this.#file) throw this.#type === 'directory' ? 'is-directory' : 'bad-descriptor';
      return liveFd(this.#file);
    }

    #fileFd() {
      if (this.#type === 'directory') throw 'is-directory';
      return this.#fd();
    }

    #stats() {
      return this.#file ? fsCall(() => fstatSync(liveFd(this.#file), { bigint: true }))
        : fsCall(() => statSync(this.#path, { bigint: true }));
    }

    [Symbol.dispose]() {
      const file = this.#file;
      if (file && file.fd >= 0) {
        closer.unregister(file);
        const fd = file.fd;
        file.fd = -1;
        try {
          closeSync(fd);
        } catch {
          // closing cannot fail in a way the guest could act on
        }
      }
    }

    readViaStream(offset) {
      this.#fileFd();
      return inputStream(this.#file, Number(offset));
    }

    writeViaStream(offset) {
      this.#mutating();
      this.#fileFd();
      return outputStream(this.#file, Number(offset));
    }

    appendViaStream() {
      this.#mutating();
      this.#fileFd();
      return outputStream(this.#file, null);
    }

    advise() {
      throw 'unsupported';
    }

    syncData() {
      this.#mutating();
      if (!this.#file) return this.sync();
      const fd = this.#fd();
      fsCall(() => fdatasyncSync(fd));
    }

    getFlags() {
      return this.#flags;
    }

    getType() {
      return this.#type;
    }

    setSize(size) {
      this.#mutating();
      const fd = this.#fileFd();
      fsCall(() => ftruncateSync(fd, Number(size)));
    }

    setTimes() {
      this.#mutating();
      throw 'unsupported';
    }

    read(length, offset) {
      const fd = this.#fileFd();
      const buf = new Uint8Array(Math.min(Number(length), READ_MAX));
      const got = fsCall(() => readSync(fd, buf, 0, buf.byteLength, Number(offset)));
      return [got === buf.byteLength ? buf : buf.subarray(0, got), got === 0];
    }

    write(buffer, offset) {
      this.#mutating();
      const fd = this.#fileFd();
      return BigInt(fsCall(() => writeSync(fd, buffer, 0, buffer.byteLength, Number(offset))));
    }

    readDirectory() {
      const dir = this.#dir();
      const entries = fsCall(() => readdirSync(dir, { withFileTypes: true }));
      return DirectoryEntryStream._make(entries);
    }

    sync() {
      this.#mutating();
      if (this.#file) {
        const fd = this.#fd();
        fsCall(() => fsyncSync(fd));
        return;
      }
      // A preopen holds no fd: open the directory to sync it.
      const fd = fsCall(() => openSync(this.#path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
      try {
        fsCall(() => fsyncSync(fd));
      } finally {
        closeSync(fd);
      }
    }

    createDirectoryAt(path) {
      this.#mutating();
      const host = resolveIn(this.#dir(), path, false);
      fsCall(() => mkdirSync(host));
    }

    stat() {
      return statOf(this.#stats());
    }

    statAt(pathFlags, path) {
      const host = resolveIn(this.#dir(), path, pathFlags.symlinkFollow);
      // Resolved: a symlink is left only when it is not to be followed.
      return statOf(fsCall(() => lstatSync(host, { bigint: true })));
    }

    setTimesAt() {
      this.#mutating();
      throw 'unsupported';
    }

    linkAt() {
      this.#mutating();
      throw 'unsupported';
    }

    openAt(pathFlags, path, openFlags, descriptorFlags) {
      const dir = this.#dir();
      let flags = descriptorFlags;
      if (this.#readOnly) {
        if (openFlags.create || openFlags.truncate || descriptorFlags.write) throw 'read-only';
        // As the read-only preopen: nothing to mutate through it.
        flags = { read: true };
      }
      if (flags.requestedWriteSync || flags.fileIntegritySync || flags.dataIntegritySync) throw 'unsupported';
      const host = resolveIn(dir, path, pathFlags.symlinkFollow);
      let mode = O_NOFOLLOW | O_CLOEXEC;
      if (openFlags.create) mode |= O_CREAT;
      if (openFlags.directory) mode |= O_DIRECTORY;
      if (openFlags.exclusive) mode |= O_EXCL;
      if (openFlags.truncate) mode |= O_TRUNC;
      if (flags.read && flags.write) mode |= O_RDWR;
      else if (flags.write) mode |= O_WRONLY;
      else mode |= O_RDONLY;
      const target = host.length > 1 && host.endsWith('/') ? host.slice(0, -1) : host;
      const fd = fsCall(() => openSync(target, mode, 0o666));
      let type;
      try {
        type = typeOf(fstatSync(fd));
        if (type === 'directory' && flags.write) throw 'is-directory';
        if (type !== 'directory' && (openFlags.directory || host.endsWith('/'))) throw 'not-directory';
      } catch (e) {
        closeSync(fd);
        throw typeof e === 'string' ? e : errorCode(e);
      }
      // A directory's path is kept real (the resolved path has no symlink).
      return makeDescriptor(target, { fd }, type, flags, this.#readOnly);
    }

    readlinkAt(path) {
      const host = resolveIn(this.#dir(), path, false);
      return fsCall(() => readlinkSync(host));
    }

    removeDirectoryAt(path) {
      this.#mutating();
      const host = resolveIn(this.#dir(), path, false);
      fsCall(() => rmdirSync(host));
    }

    renameAt(oldPath, newDescriptor, newPath) {
      this.#mutating();
      if (!(newDescriptor instanceof Descriptor)) throw 'bad-descriptor';
      newDescriptor.#mutating();
      const from = resolveIn(this.#dir(), oldPath, false);
      const to = resolveIn(newDescriptor.#dir(), newPath, false);
      fsCall(() => renameSync(from, to));
    }

    symlinkAt() {
      this.#mutating();
      throw 'unsupported';
    }

    unlinkFileAt(path) {
      this.#mutating();
      const host = resolveIn(this.#dir(), path, false);
      if (host.endsWith('/')) {
        const isDir = (() => {
          try {
            return statSync(host).isDirectory();
          } catch {
            return false;
          }
        })();
        throw isDir ? 'is-directory' : 'not-directory';
      }
      fsCall(() => unlinkSync(host));
    }

    isSameObject(other) {
      if (!(other instanceof Descriptor)) return false;
      const [a, b] = [this.#stats(), other.#stats()];
      return a.dev === b.dev && a.ino === b.ino;
    }

    // As the shim computes it: modification time and inode.
    metadataHash() {
      const stats = this.#stats();
      return { upper: stats.mtimeNs, lower: stats.ino };
    }

    metadataHashAt(pathFlags, path) {
      const host = resolveIn(this.#dir(), path, pathFlags.symlinkFollow);
      const stats = fsCall(() => lstatSync(host, { bigint: true }));
      return { upper: stats.mtimeNs, lower: stats.ino };
    }
  }
  const makeDescriptor = Descriptor._make;
  delete Descriptor._make;

  class DirectoryEntryStream {
    #entries;
    #next = 0;

    static _make(entries) {
      const s = new DirectoryEntryStream();
      s.#entries = entries;
      return s;
    }

    readDirectoryEntry() {
      const entry = this.#entries[this.#next];
      if (entry === undefined) return undefined;
      this.#next += 1;
      return { type: typeOf(entry), name: entry.name };
    }

    [Symbol.dispose]() {
      this.#entries = [];
    }
  }

  const entries = Object.entries(preopens).map(([guestPath, hostPath]) => {
    let real;
    try {
      real = realpathSync(hostPath);
    } catch {
      // A missing directory: every call through it fails as the OS says.
      real = resolvePath(hostPath);
    }
    const ro = readOnlyPaths.has(guestPath);
    const flags = ro ? { read: true } : { read: true, write: true, mutateDirectory: true };
    return [makeDescriptor(real, null, 'directory', flags, ro), guestPath];
  });

  return {
    types: {
      Descriptor,
      DirectoryEntryStream,
      filesystemErrorCode(err) {
        const payload = err?.payload;
        return payload && CODES[payload.code] ? CODES[payload.code] : undefined;
      },
    },
    preopens: { getDirectories: () => [...entries] },
  };
}
