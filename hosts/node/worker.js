// The worker thread that runs one instance of the component for a group of
// memories (see `agent-memory.js`). It answers one request at a time: the
// main thread posts a request on `port`, blocks in `Atomics.wait` on `flag`,
// and reads the reply with `receiveMessageOnPort` once this thread has
// posted it and flipped the flag. A call that runs too long is ended by the
// main thread terminating this worker; nothing here needs to know.

import { workerData } from 'node:worker_threads';
import { instantiateComponent } from './instantiate.js';

const { port, flag, roots, projects, modules, workaround } = workerData;
const signal = new Int32Array(flag);

function reply(message) {
  port.postMessage(message);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

// Guest stderr, kept short: it explains a trap (a panic's text, or Rust's
// "memory allocation of N bytes failed" when the memory cap was hit).
const STDERR_KEEP = 4096;
let stderr = '';
const decoder = new TextDecoder();

function captureStderr(streams) {
  // An output stream of the shim's own class (the glue checks `instanceof`),
  // whose methods write into `stderr` instead of the process's.
  const stream = Object.create(streams.OutputStream.prototype);
  const keep = (buf) => {
    stderr = (stderr + decoder.decode(buf)).slice(-STDERR_KEEP);
  };
  Object.assign(stream, {
    checkWrite: () => 1n << 20n,
    write: keep,
    blockingWriteAndFlush: keep,
    flush() {},
    blockingFlush() {},
    [Symbol.dispose]() {},
  });
  return { getStderr: () => stream };
}

// WORKAROUND for @bytecodealliance/preview2-shim (seen in 0.17 to 0.26.1):
// Rust's std opens files for writing with the `mutate-directory` descriptor
// flag, and the shim's `Descriptor.openAt` rejects that flag ("unsupported"),
// so every write of the guest would fail while reads work. The flag only
// matters for directory descriptors, so it is cleared for non-directory opens.
// The patch is an own property on each descriptor the guest can reach (its
// preopens and what it opens from there): no global prototype is touched.
// `test/memory.test.js` proves the workaround is still needed.
function patchOpenAt(descriptor) {
  const openAt = descriptor.openAt;
  descriptor.openAt = function (pathFlags, path, openFlags, descriptorFlags) {
    const flags =
      descriptorFlags.mutateDirectory && !openFlags.directory
        ? { ...descriptorFlags, mutateDirectory: false }
        : descriptorFlags;
    return patchOpenAt(openAt.call(this, pathFlags, path, openFlags, flags));
  };
  return descriptor;
}

// The project directory is for hashing only (staleness anchors): the shim
// has no read-only preopen, so every descriptor reached through it refuses
// what would change the disk with `read-only`, as a wasmtime read-only
// preopen does. Opens lose `mutate-directory` (nothing can mutate anyway).
const MUTATORS = [
  'write', 'writeViaStream', 'appendViaStream', 'setSize', 'setTimes', 'setTimesAt',
  'createDirectoryAt', 'linkAt', 'removeDirectoryAt', 'renameAt', 'symlinkAt', 'unlinkFileAt',
  'sync', 'syncData',
];
function readOnly(descriptor) {
  for (const name of MUTATORS) {
    if (typeof descriptor[name] === 'function') {
      descriptor[name] = () => {
        throw 'read-only';
      };
    }
  }
  const openAt = descriptor.openAt;
  descriptor.openAt = function (pathFlags, path, openFlags, descriptorFlags) {
    if (openFlags.create || openFlags.truncate || descriptorFlags.write) throw 'read-only';
    const flags = { ...descriptorFlags, mutateDirectory: false };
    return readOnly(openAt.call(this, pathFlags, path, openFlags, flags));
  };
  descriptor.getFlags = () => ({ read: true });
  return descriptor;
}

// Error kinds travel by name: a case of the WIT variant, or `other(name)`'s
// name; no list of them here, so new kinds need no change.
function errorOf(e) {
  const payload = e?.payload;
  if (payload && typeof payload === 'object' && payload.kind && typeof payload.message === 'string') {
    const kind = payload.kind.tag === 'other' ? payload.kind.val : payload.kind.tag;
    if (typeof kind === 'string') return { kind, message: payload.message };
  }
  return null;
}

let exports;
const handles = new Map();
// The embedding model of this instance, shared by its memories.
let model = null;

function run(request) {
  switch (request.type) {
    case 'open': {
      handles.set(request.index, exports.store.Memory.open(request.options));
      return null;
    }
    case 'method': {
      const handle = handles.get(request.index);
      return handle[request.name](...request.args);
    }
    case 'free':
      return exports[request.iface][request.name](...request.args);
    case 'semantic-load':
      // The bytes are shared with the main thread: the guest copies them in.
      model = exports.semantic.Model.load(request.weights);
      return null;
    case 'semantic-enable':
      exports.semantic.enable(handles.get(request.index), model);
      return null;
    case 'semantic':
      return exports.semantic[request.name](handles.get(request.index), ...request.args);
    case 'drop': {
      const handle = handles.get(request.index);
      handles.delete(request.index);
      handle?.[Symbol.dispose]();
      return null;
    }
    default:
      throw new Error(`unknown request ${request.type}`);
  }
}

try {
  const [{ filesystem, io }, { WASIShim }, transpiled] = await Promise.all([
    import('@bytecodealliance/preview2-shim'),
    import('@bytecodealliance/preview2-shim/instantiation'),
    import('./gen/agent_memory.js'),
  ]);
  const preopens = Object.fromEntries([...roots, ...projects].map((r) => [r.guestRoot, r.root]));
  const fs = filesystem.createFilesystem({ preopens });
  const directories = fs.preopens.getDirectories();
  const readOnlyPaths = new Set(projects.map((p) => p.guestRoot));
  for (const [descriptor, guestPath] of directories) {
    if (readOnlyPaths.has(guestPath)) readOnly(descriptor);
    else if (workaround) patchOpenAt(descriptor);
  }
  const shim = new WASIShim({
    filesystem: { types: fs.types, preopens: { getDirectories: () => [...directories] } },
    sandbox: { env: {}, args: [], enableNetwork: false },
  });
  const imports = shim.getImportObject();
  for (const name of Object.keys(imports)) {
    if (name.startsWith('wasi:cli/stderr')) imports[name] = captureStderr(io.streams);
  }
  // Not `transpiled.instantiate` directly: see instantiate.js (about 0.45 s).
  exports = instantiateComponent(transpiled, (name) => modules[name], imports);
  port.on('message', (request) => {
    stderr = '';
    let message;
    try {
      message = { ok: run(request) };
    } catch (e) {
      const error = errorOf(e);
      message = error
        ? { err: error }
        : { trap: { name: e?.name ?? 'Error', message: String(e?.message ?? e), stderr } };
    }
    reply(message);
  });
  reply({ ok: 'ready' });
} catch (e) {
  reply({ trap: { name: e?.name ?? 'Error', message: `cannot start the memory component: ${e?.message ?? e}`, stderr } });
}
