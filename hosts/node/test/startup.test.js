// How a process starts: what the worker does before the first call can run
// (instantiate.js). Speed itself is the benchmark's (`agent-memory-bench
// cold`); these tests pin the behaviour that makes it fast.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { instantiateComponent } from 'agent-memory/instantiate';

const PACKAGE = dirname(fileURLToPath(import.meta.resolve('agent-memory')));
const GEN = join(PACKAGE, 'gen');
const hasOwn = (name) => Object.prototype.hasOwnProperty.call(WebAssembly, name);

test('instantiateComponent puts WebAssembly.promising back as it was, also when instantiation throws', () => {
  const engineHasJspi = typeof WebAssembly.promising === 'function';
  const before = { own: hasOwn('promising'), value: WebAssembly.promising };
  let seen;
  const stats = { refused: 0 };
  const result = instantiateComponent(
    {
      instantiate(getCoreModule, imports) {
        seen = WebAssembly.promising;
        // What the glue does: probe, and fall back to the plain function.
        const plain = () => 1;
        let wrapped;
        try {
          wrapped = WebAssembly.promising(plain);
        } catch {
          wrapped = plain;
        }
        return { getCoreModule, imports, wrapped };
      },
    },
    'modules',
    'imports',
    stats,
  );
  assert.equal(result.getCoreModule, 'modules');
  assert.equal(result.imports, 'imports');
  assert.equal(typeof seen, 'function');
  if (engineHasJspi) {
    // The engine's own is used, untouched.
    assert.equal(seen, before.value);
    assert.equal(stats.refused, 0);
  } else {
    assert.equal(result.wrapped(), 1, 'the glue falls back to the plain function');
    assert.equal(stats.refused, 1);
  }
  assert.equal(hasOwn('promising'), before.own);
  assert.equal(WebAssembly.promising, before.value);

  assert.throws(
    () => instantiateComponent({ instantiate() { throw new Error('no instance'); } }, null, null),
    /no instance/,
  );
  assert.equal(hasOwn('promising'), before.own);
  assert.equal(WebAssembly.promising, before.value);
});

test('the transpiled glue still probes WebAssembly.promising while it instantiates, so the stand-in is needed', async (t) => {
  if (typeof WebAssembly.promising === 'function') {
    t.skip('this Node has JSPI: the glue gets what it probes for, and instantiate.js stands aside');
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
    const stats = { refused: 0 };
    const exports = instantiateComponent(transpiled, (name) => modules[name], shim.getImportObject(), stats);
    assert.deepEqual(Object.keys(exports.store), ['Memory']);
    assert.equal(typeof exports.semantic.Model, 'function');
    // Each probe would have been a TypeError whose message makes V8 parse
    // the glue's instantiation function again. When jco stops probing, this
    // fails: instantiate.js can then go.
    assert.ok(stats.refused > 0, 'the glue no longer calls WebAssembly.promising: remove instantiate.js');
    assert.equal(hasOwn('promising'), false);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
