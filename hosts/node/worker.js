// The worker thread that runs one instance of the component for a group of
// memories (see `agent-memory.js`). It answers one request at a time: the
// main thread posts a request on `port`, blocks in `Atomics.wait` on `flag`,
// and reads the reply with `receiveMessageOnPort` once this thread has
// posted it and flipped the flag. A call that runs too long is ended by the
// main thread terminating this worker; nothing here needs to know.

import { workerData } from 'node:worker_threads';
import { createFilesystem } from './wasi-fs.js';

const { port, flag, roots, projects } = workerData;
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
  // The core modules come first on the port, compiled by the main thread
  // while this one imports.
  const [{ io }, { WASIShim }, transpiled, { modules }] = await Promise.all([
    import('@bytecodealliance/preview2-shim'),
    import('@bytecodealliance/preview2-shim/instantiation'),
    import('./gen/agent_memory.js'),
    new Promise((resolve) => port.once('message', resolve)),
  ]);
  // The filesystem is wasi-fs.js (node:fs on this thread, see there), not
  // the shim's, whose every call is a round trip to the shim's I/O thread.
  const filesystem = createFilesystem({
    preopens: Object.fromEntries([...roots, ...projects].map((r) => [r.guestRoot, r.root])),
    // The project directory is for hashing only (staleness anchors).
    readOnly: projects.map((p) => p.guestRoot),
    io,
  });
  const shim = new WASIShim({
    filesystem,
    sandbox: { env: {}, args: [], enableNetwork: false },
  });
  const imports = shim.getImportObject();
  for (const name of Object.keys(imports)) {
    if (name.startsWith('wasi:cli/stderr')) imports[name] = captureStderr(io.streams);
  }
  exports = transpiled.instantiate((name) => modules[name], imports);
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
