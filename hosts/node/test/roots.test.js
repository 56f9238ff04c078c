// Root resolution and the off switch: the shared vectors
// (`conformance/roots/resolution.json`), the same the Rust and Python hosts run.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveRoot, RootError, disabledReply } from 'agent-memory';
import { REPO } from './conformance.js';

const CASES = JSON.parse(readFileSync(join(REPO, 'conformance', 'roots', 'resolution.json'), 'utf8'));

test('the vector file is whole', () => {
  assert.ok(CASES.length >= 20);
});

const scratch = [];
after(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

for (const c of CASES) {
  test(`root vector ${c.name}`, () => {
    const tmp = mkdtempSync(join(tmpdir(), 'am-roots-'));
    scratch.push(tmp);
    const fill = (text) => text.replaceAll('{tmp}', tmp);
    if (c.config !== undefined) {
      mkdirSync(join(tmp, 'config', 'agent-memory'), { recursive: true });
      writeFileSync(join(tmp, 'config', 'agent-memory', 'config.json'), c.config);
    }
    for (const [name, text] of Object.entries(c.files ?? {})) writeFileSync(join(tmp, name), text);
    const env = Object.fromEntries(Object.entries(c.env ?? {}).map(([k, v]) => [k, fill(v)]));
    const explicit = c.explicit !== undefined ? fill(c.explicit) : null;
    const options = { env, home: join(tmp, 'home'), configDir: join(tmp, 'config'), dataDir: join(tmp, 'data') };
    const want = c.expect;
    if (want.error) {
      assert.throws(() => resolveRoot(explicit, options), (e) => e instanceof RootError && e.kind === want.error);
      return;
    }
    const choice = resolveRoot(explicit, options);
    assert.equal(choice.root, fill(want.root));
    assert.equal(choice.rule, want.rule);
    assert.equal(choice.configFile, want.config_file ? fill(want.config_file) : null);
    assert.equal(choice.disabled, want.disabled ? fill(want.disabled) : null);
    if (want.reply) assert.equal(disabledReply(choice.disabled), want.reply);
  });
}
