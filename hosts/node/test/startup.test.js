// How a process starts: what the worker does before the first call can run.
// Speed itself is the benchmark's (`agent-memory-bench cold`); this test pins
// the behaviour that keeps it fast.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const PACKAGE = dirname(fileURLToPath(import.meta.resolve('agent-memory')));
const GEN = join(PACKAGE, 'gen');
const hasOwn = (name) => Object.prototype.hasOwnProperty.call(WebAssembly, name);

// jco's glue from 1.17 on wraps every export in `try { WebAssembly.promising(f) }
// catch { f }`. On an engine without JSPI (Node 20 and 22) each probe throws a
// TypeError, and to word its message V8 parses the calling function again: the
// glue's 24,000-line instantiation function, 24 times, about 0.45 s of every
// worker start. The glue of the pinned jco does not probe. If a newer jco
// does, this fails: measure its start (`agent-memory-bench cold`) before
// taking it.
test('the transpiled glue instantiates without probing WebAssembly.promising', async (t) => {
  if (typeof WebAssembly.promising === 'function') {
    t.skip('this Node has JSPI: a probe would find it and cost nothing');
    return;
  }
  // Instantiate the package's own transpiled component as worker.js does.
  const root = mkdtempSync(join(tmpdir(), 'agent-memory-node-startup-'));
  try {
    const [{ filesystem }, { WASIShim }, transpiled] = await Promise.all([
      import('@bytecodealliance/preview2-shim'),
      import('@bytecodealliance/preview2-shim/instantiation'),
      import(pathToFileURL(join(GEN, 'agent_memory.js')).href),
    ]);
    const modules = {};
    for (const name of readdirSync(GEN).filter((n) => n.endsWith('.wasm'))) {
      modules[name] = new WebAssembly.Module(readFileSync(join(GEN, name)));
    }
    const fs = filesystem.createFilesystem({ preopens: { '/': root } });
    const shim = new WASIShim({
      filesystem: { types: fs.types, preopens: fs.preopens },
      sandbox: { env: {}, args: [], enableNetwork: false },
    });
    let probes = 0;
    WebAssembly.promising = function promising() {
      probes += 1;
      throw new TypeError('WebAssembly.promising is not available in this engine (no JSPI)');
    };
    let exports;
    try {
      exports = transpiled.instantiate((name) => modules[name], shim.getImportObject());
    } finally {
      delete WebAssembly.promising;
    }
    assert.deepEqual(Object.keys(exports.store), ['Memory']);
    assert.equal(typeof exports.semantic.Model, 'function');
    assert.equal(probes, 0, 'the glue probes WebAssembly.promising again: each probe costs a re-parse of the glue');
    assert.equal(hasOwn('promising'), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('opening a memory without the transpiled component says how to build it', async () => {
  // The package's own files, without gen/: what a checkout that never ran
  // `npm run build` has.
  const copy = mkdtempSync(join(tmpdir(), 'agent-memory-node-nogen-'));
  const root = mkdtempSync(join(tmpdir(), 'agent-memory-node-nogen-root-'));
  try {
    for (const name of readdirSync(PACKAGE).filter((n) => n.endsWith('.js') || n === 'package.json')) {
      writeFileSync(join(copy, name), readFileSync(join(PACKAGE, name)));
    }
    const { Memory } = await import(pathToFileURL(join(copy, 'agent-memory.js')).href);
    assert.throws(
      () => Memory.open(root, root),
      (e) => e.message.startsWith(`the transpiled component is missing in ${join(copy, 'gen')}: run \`npm run build\``),
    );
  } finally {
    rmSync(copy, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  }
});
