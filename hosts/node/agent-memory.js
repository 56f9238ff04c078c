// Persistent Markdown memory for coding agents, from Node.js.
//
// This package runs the `agent:memory` WebAssembly component (built from the
// agent-memory repository's `guest/`, transpiled by jco into `gen/` and
// shipped in the package) with `@bytecodealliance/preview2-shim` as its
// WASI, all but the filesystem (see below). A `Memory` is a handle on one
// `memory` resource of contract 0.2 (`agent:memory/store@0.2.0`): one root,
// one project, its own clock, limits, secret policy and source label.
// `openGroup` opens several in one instance of the component.
//
//     import { Memory } from 'agent-memory';
//     const memory = Memory.open('/tmp/agent-memory', '/home/me/src/my-app');
//     memory.write('long-term', '- prefers tabs');
//     const block = memory.contextBlock();        // for the system prompt, or null
//     const tools = memory.toolDefinitions();     // the 'full' tool set, for the model
//     const reply = memory.callTool('memory_search', { query: 'tabs' });
//     memory.undo();                              // undo the write
//
// Every change is recorded in the memory's history first (`history`,
// `restore`, `lastChange`). Text that looks like a credential is refused
// (`secretPolicy: 'block'`, the default), redacted (`'redact'`) or stored as
// given (`'off'`); the policy is the host's, never the model's.
//
// Each instance runs in a worker thread of its own, and every call is
// synchronous: the calling thread posts the request and blocks in
// `Atomics.wait` until the worker answers, or until the call timeout (30 s),
// when the worker is terminated. The worker's core modules get a declared
// memory maximum (256 MiB by default; see `memory-cap.js`), so a call that
// needs more traps. Either way the call throws `MemoryTrap` (`.limit` says
// which), and the next call starts a fresh worker and reopens the memories.
//
// The guest's filesystem is this package's own (`wasi-fs.js`: `node:fs`
// calls on the worker's thread; the shim gives clocks, random, the CLI
// interfaces and wasi:io). It enforces the sandbox in JavaScript: each guest
// path is resolved under its descriptor with `lstat`, refusing absolute
// paths, `..` and symlinks that lead out, and the project directory refuses
// every change with `read-only`. That is a check before each call, not the
// kernel's `openat` confinement wasmtime has: a weaker boundary than the Rust
// and Python hosts give (a directory another process swaps for a symlink
// between the check and the call is not caught).

import { readFileSync, readdirSync, mkdirSync, realpathSync, existsSync, statSync, lstatSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { basename, dirname, join, resolve } from 'node:path';
import { Worker, MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { capMemories } from './memory-cap.js';
import { choose, refusedWhy, rememberRefused, semanticStatus, weightsBytes } from './semantic.js';

export { resolveRoot, RootError, disabledReply, ENV_DIR, ENV_DISABLE, ENV_CONFIG } from './roots.js';
export { WEIGHTS_FILE, ENV_WEIGHTS, ENV_SEMANTIC } from './semantic.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const GEN_DIR = join(HERE, 'gen');
const WORKER = new URL('./worker.js', import.meta.url);

/** The default cap on an instance's linear memory, as in the Rust host: 256 MiB. */
export const DEFAULT_MAX_MEMORY_BYTES = 256 * 1024 * 1024;
/** The default bound on one call, as in the Rust host: 30 s. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;
// Chunks `indexVectors` embeds per call of the component: about 2 s each
// round, so progress moves and no call nears the call timeout.
const INDEX_ROUND = 16;

/** The WIT `write-target` cases, in WIT order (a test compares with the WIT). */
export const WRITE_TARGETS = Object.freeze(['long-term', 'scratchpad', 'daily', 'note']);
/** The WIT `read-source` cases. */
export const READ_SOURCES = Object.freeze(['long-term', 'scratchpad', 'daily', 'note']);
/** The WIT `write-mode` cases. */
export const WRITE_MODES = Object.freeze(['append', 'overwrite']);
/** The WIT `search-mode` cases: `ranked` (words, relevance) and `literal` (the seeds' substring search). */
export const SEARCH_MODES = Object.freeze(['ranked', 'literal']);
/** The WIT `tool-set` cases: which tool definitions a model is given. */
export const TOOL_SETS = Object.freeze(['seed', 'full', 'anthropic']);
/** The WIT `secret-policy` cases: what a write does with a credential. */
export const SECRET_POLICIES = Object.freeze(['block', 'redact', 'off']);
/** The WIT `operation` cases: the change that replaced a recorded version. */
/** The WIT `scope` cases: which store an opened memory's methods act on. */
export const SCOPES = Object.freeze(['personal', 'team']);
/** The team directory's name in a project: `<project root>/.agent-memory`. */
export const TEAM_DIR_NAME = '.agent-memory';
export const OPERATIONS = Object.freeze(['write', 'append', 'edit', 'delete', 'rename', 'restore', 'import']);

/**
 * The memory refused an operation. `kind` is the WIT error kind in its
 * spelling (`invalid-name`, `not-found`, ...), or for `other(name)` that
 * name; `message` names the value or path concerned and is for people.
 */
export class MemoryError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'MemoryError';
    this.kind = kind;
  }
}

/**
 * The component trapped, or hit a limit of its instance: `limit` is `'time'`
 * (the call timeout), `'memory'` (the memory cap) or `null`. The instance is
 * gone; the next call starts a fresh one and reopens the memories.
 */
export class MemoryTrap extends Error {
  constructor(operation, message, limit = null) {
    const what = limit === 'time' ? 'ran out of time' : limit === 'memory' ? 'ran out of memory' : 'trapped';
    super(`the memory component ${what} in ${operation}: ${message}`);
    this.name = 'MemoryTrap';
    this.operation = operation;
    this.limit = limit;
  }
}

// The transpiled core modules, compiled once per process and memory cap, and
// handed to each worker (a WebAssembly.Module can be posted to a worker).
const compiled = new Map();
function coreModules(maxMemoryBytes) {
  let modules = compiled.get(maxMemoryBytes);
  if (modules) return modules;
  if (!existsSync(join(GEN_DIR, 'agent_memory.js'))) {
    throw new Error(
      `the transpiled component is missing in ${GEN_DIR}: run \`npm run build\` in hosts/node ` +
        '(after `cargo build -p agent-memory-cli`)',
    );
  }
  modules = {};
  // jco names them agent_memory.core.wasm, agent_memory.core2.wasm, ...
  for (const name of readdirSync(GEN_DIR).filter((n) => n.endsWith('.wasm'))) {
    modules[name] = new WebAssembly.Module(capMemories(readFileSync(join(GEN_DIR, name)), maxMemoryBytes));
  }
  compiled.set(maxMemoryBytes, modules);
  return modules;
}

function parseNow(now) {
  if (now === undefined || now === null) return null;
  if (now instanceof Date) {
    if (Number.isNaN(now.getTime())) throw new TypeError('`now` is an invalid Date');
    return { unix: Math.floor(now.getTime() / 1000), offset: -now.getTimezoneOffset() };
  }
  if (typeof now !== 'string') throw new TypeError('`now` must be an RFC 3339 string or a Date');
  const m = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(now.trim());
  const ms = Date.parse(now.trim());
  if (!m || Number.isNaN(ms)) {
    throw new TypeError(`\`now\` ${JSON.stringify(now)} is not RFC 3339 with an offset (e.g. 2026-05-30T09:15:00+02:00)`);
  }
  const offset = m[1] ? 0 : (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
  return { unix: Math.floor(ms / 1000), offset };
}

const localOffset = () => -new Date().getTimezoneOffset();
const toNumber = (v) => (v === undefined || v === null ? null : Number(v));

// The WIT words (`long-term`) and the tool words (`long_term`) both work.
function word(value, choices, kind, what) {
  const wit = typeof value === 'string' ? value.replaceAll('_', '-') : null;
  if (choices.includes(wit)) return wit;
  throw new MemoryError(kind, `unknown ${what} \`${value}\`; expected one of ${choices.join(', ')}`);
}

// How full the injected memory is after a change (the WIT `budget` record).
function budget(b) {
  return {
    indexLines: Number(b.indexLines),
    indexMaxLines: b.indexMaxLines,
    indexBytes: Number(b.indexBytes),
    indexMaxBytes: b.indexMaxBytes,
    blockBytes: b.blockBytes,
    blockMaxBytes: b.blockMaxBytes,
    reach: b.reach,
    warning: b.warning ?? null,
  };
}

function receipt(r) {
  return {
    path: r.path,
    bytesWritten: Number(r.bytesWritten),
    truncatedFrom: toNumber(r.truncatedFrom),
    warnings: [...r.warnings],
    budget: budget(r.budget),
    message: r.message,
  };
}

// Why recall is off in a search made before the model is loaded: the CLI's
// words, so a search's note reads the same in every host.
const DEFERRED = 'the model is loaded when a query needs it';

// Whether ranked results made without the model may differ from a loaded
// model's: meaning decides only when the lexical evidence is weak, and with
// the component's fusion settings that needs a query word that no file holds
// (the rule the CLI defers by). Also, to be safe, no hits at all, or a best
// hit that holds no query word.
function resultsNeedModel(r) {
  if (r.terms.some((t) => t.count === 0)) return true;
  if (r.hits.length === 0) return true;
  const matched = r.hits[0].matchedTerms.map((m) => m.toLowerCase());
  const words = r.terms.map((t) => t.term.toLowerCase());
  return !words.some((w) => matched.some((m) => m === w || m.includes(w) || (m.length >= 4 && w.startsWith(m))));
}

// Whether a `memory_search` reply made without the model says meaning would
// have decided: its second line is `semantic: off (<DEFERRED>)`.
function replyNeedsModel(reply) {
  return typeof reply === 'string' && reply.split('\n', 2)[1] === `semantic: off (${DEFERRED})`;
}

function searchResults(r) {
  return {
    terms: r.terms.map((t) => ({ term: t.term, count: t.count })),
    hits: r.hits.map((h) => ({
      path: h.path,
      matchedTerms: [...h.matchedTerms],
      totalHits: h.totalHits,
      body: h.body,
      filenameOnly: h.filenameOnly,
      date: h.date ?? null,
      isMemoryMd: h.isMemoryMd,
    })),
  };
}

function version(v) {
  return {
    id: v.id,
    path: v.path,
    timeUnix: Number(v.timeUnix),
    utcOffsetMinutes: v.utcOffsetMinutes,
    operation: v.operation,
    bytes: toNumber(v.bytes),
    source: v.source,
    otherPath: v.otherPath ?? null,
  };
}

const ALLOCATION_FAILED = 'memory allocation of ';

/** The memories that share one instance (a worker), and the worker while it lives. */
class Group {
  members;
  maxMemoryBytes;
  callTimeoutMs;
  #live = null;

  constructor(specs) {
    const single = specs.length === 1;
    this.members = specs.map((spec, i) =>
      member(spec, single ? '/' : `/memory-${i}`, single ? GUEST_PROJECT : `${GUEST_PROJECT}-${i}`),
    );
    const models = [...new Set(this.members.map((m) => m.semantic.weights).filter((w) => w !== null))];
    if (models.length > 1) {
      throw new MemoryError(
        'invalid-options',
        `the memories of one group share one embedding model, but they were given ${models.map((w) => `\`${w}\``).join(', ')}; give them the same weights, or open them apart`,
      );
    }
    this.maxMemoryBytes = Math.max(...specs.map((s) => s.maxMemoryBytes ?? DEFAULT_MAX_MEMORY_BYTES));
    this.callTimeoutMs = Math.max(...specs.map((s) => s.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS));
  }

  get live() {
    return this.#live !== null;
  }

  #start() {
    for (const m of this.members) m.open = false;
    const flag = new SharedArrayBuffer(4);
    const { port1, port2 } = new MessageChannel();
    const worker = new Worker(WORKER, {
      workerData: {
        port: port2,
        flag,
        roots: this.members.flatMap((m) => [
          { root: m.root, guestRoot: m.guestRoot },
          ...(m.team ? [{ root: m.team, guestRoot: m.guestTeam }] : []),
        ]),
        projects: this.members
          .filter((m) => m.projectDir !== undefined)
          .map((m) => ({ root: m.projectDir, guestRoot: m.guestProject })),
      },
      transferList: [port2],
      // The component never writes to stdio; nothing of the worker's own
      // should reach the process's either.
      stdout: true,
      stderr: true,
    });
    // The worker must not keep the process alive, nor its end be an
    // unhandled error: a timed-out call terminates it on purpose.
    worker.unref();
    worker.on('error', () => {});
    // The worker boots and imports the glue while this thread compiles the
    // core modules (the first time in this process); it waits for them.
    try {
      port1.postMessage({ modules: coreModules(this.maxMemoryBytes) });
    } catch (e) {
      // No modules (the transpiled component is missing): the worker would
      // wait for them forever.
      worker.terminate();
      throw e;
    }
    // `model`: the embedding model is loaded in this worker.
    this.#live = { worker, port: port1, signal: new Int32Array(flag), model: false };
    // Starting takes a fraction of a second; a worker that cannot start
    // answers with a trap, one that hangs is bounded like a call.
    this.#await('start', this.#startTimeoutMs);
  }

  #await(operation, timeoutMs, args = []) {
    const { port, signal } = this.#live;
    const waited = Atomics.wait(signal, 0, 0, timeoutMs);
    const received = waited === 'timed-out' ? undefined : receiveMessageOnPort(port);
    if (received === undefined) {
      this.#stop();
      throw new MemoryTrap(operation, `the call ran longer than ${timeoutMs} ms and its worker was terminated`, 'time');
    }
    const message = received.message;
    if ('trap' in message) {
      this.#stop();
      const { name, message: text, stderr } = message.trap;
      // The memory cap shows in one of two ways: the component's allocator
      // says so on stderr, or an argument could never fit (its UTF-8 is at
      // least as many bytes as it has UTF-16 units) and copying it in failed
      // before the component could say anything.
      const tooBig = args.reduce((n, a) => n + (typeof a === 'string' ? a.length : 0), 0) >= this.maxMemoryBytes;
      if (tooBig || stderr.includes(ALLOCATION_FAILED)) {
        throw new MemoryTrap(operation, `linear memory is capped at ${this.maxMemoryBytes} bytes (${name}: ${text})`, 'memory');
      }
      throw new MemoryTrap(operation, `${name}: ${text}${stderr ? `\ncomponent stderr: ${stderr.trim()}` : ''}`);
    }
    if ('err' in message) throw new MemoryError(message.err.kind, message.err.message);
    return message.ok;
  }

  #stop() {
    const live = this.#live;
    this.#live = null;
    for (const m of this.members) m.open = false;
    if (live) {
      live.port.close();
      void live.worker.terminate();
    }
  }

  /**
   * Sends one request to the worker (starting it first if needed) and waits
   * for the answer, at most `timeoutMs` (default: the call timeout).
   */
  request(operation, request, timeoutMs = this.callTimeoutMs) {
    if (!this.#live) this.#start();
    const { port, signal } = this.#live;
    Atomics.store(signal, 0, 0);
    port.postMessage(request);
    return this.#await(operation, timeoutMs, request.args);
  }

  // Starting a worker and reopening its memories runs cold code (V8 compiles
  // wasm lazily), so it is bounded apart from the calls themselves.
  get #startTimeoutMs() {
    return Math.max(this.callTimeoutMs, 10_000);
  }

  /** Makes sure member `index` is open in the live worker, with the current local offset. */
  ensureOpen(index) {
    const m = this.members[index];
    if (m.closed) throw new Error(`the memory on ${m.root} is closed`);
    this.#releaseClosed();
    if (!this.#live || !m.open) {
      if (!this.#live) this.#start();
      if (m.followsSystemZone) m.offset = localOffset();
      this.request('store.open', { type: 'open', index, options: witOptions(m) }, this.#startTimeoutMs);
      m.open = true;
      m.semanticApplied = false;
      m.semanticDeferred = false;
      if (m.semantic.weights === null) {
        if (m.semantic.whyOff !== null) {
          this.request('semantic.disable', { type: 'semantic', name: 'disable', index, args: [m.semantic.whyOff] });
        }
        m.semanticApplied = true;
      }
    } else if (m.followsSystemZone && localOffset() !== m.offset) {
      m.offset = localOffset();
      this.request('store.set-clock', { type: 'method', index, name: 'setClock', args: [clock(m)] });
    }
  }

  /**
   * Calls a method of member `index`; with `semantic`, its semantic recall
   * is set up first (the model loaded, if on). With `needsModel` too, the
   * model is not loaded for the call unless it is already: the call runs
   * with recall off for `DEFERRED`, and when `needsModel(answer)` says
   * meaning would have decided (a query word in no file), the model is
   * loaded and the call made again, so the answer is a loaded model's.
   */
  method(index, name, args, semantic = false, needsModel = null) {
    const deferred = semantic && needsModel !== null && this.deferSemantic(index);
    if (semantic && !deferred) this.ensureSemantic(index);
    this.ensureOpen(index);
    const call = () => this.request(`store.${kebab(name)}`, { type: 'method', index, name, args });
    const answer = call();
    if (!deferred || !needsModel(answer)) return answer;
    this.ensureSemantic(index);
    this.ensureOpen(index);
    return call();
  }

  /**
   * Puts off loading the model for a search of member `index`: true when
   * the model is not loaded in this worker and recall is to be on, the
   * memory then being told why it is off for now (`DEFERRED`); false when
   * the setting is already applied or the model is there to enable at no
   * cost.
   */
  deferSemantic(index) {
    this.ensureOpen(index);
    const m = this.members[index];
    if (m.semanticApplied) return false;
    const weights = m.semantic.weights;
    if (weights === null || this.#live.model || refusedWhy(weights) !== null) return false;
    if (!m.semanticDeferred) {
      this.request('semantic.disable', { type: 'semantic', name: 'disable', index, args: [DEFERRED] });
      m.semanticDeferred = true;
    }
    return true;
  }

  /** `semantic.<name>(memory, ...args)` for member `index`, its semantic recall set up first. */
  semantic(index, name, args) {
    this.ensureSemantic(index);
    this.ensureOpen(index);
    return this.request(`semantic.${kebab(name)}`, { type: 'semantic', name, index, args });
  }

  /**
   * Gives member `index` its semantic setting before a call that uses it:
   * the model is loaded in this worker the first time (the weights read once
   * per process) and enabled on the memory. A weights file the component
   * refuses, or a load that traps, turns recall off with the reason; nothing
   * is thrown for it.
   */
  ensureSemantic(index) {
    this.ensureOpen(index);
    const m = this.members[index];
    if (m.semanticApplied) return;
    const weights = m.semantic.weights;
    let why = refusedWhy(weights);
    if (why === null && !this.#live.model) {
      try {
        // The first load in a process runs while V8 still compiles the
        // guest's code (about 10 s here, 1.6 s after): bounded apart.
        const bound = Math.max(this.callTimeoutMs, 60_000);
        this.request('semantic.load', { type: 'semantic-load', weights: weightsBytes(weights) }, bound);
        this.#live.model = true;
      } catch (error) {
        if (error instanceof MemoryError) {
          why = `the weights file \`${weights}\` was refused: ${error.message}`;
          if (error.kind === 'invalid-options') rememberRefused(weights, why);
        } else if (error instanceof MemoryTrap) {
          why = `loading the weights file \`${weights}\` failed: ${error.message}`;
        } else if (error?.code) {
          why = `the weights file \`${weights}\` cannot be read: ${error.message}`;
        } else {
          throw error;
        }
      }
    }
    if (why !== null) {
      this.#semanticOff(weights, why);
      // A trap ended the worker: the memory opens again, off.
      this.ensureOpen(index);
      return;
    }
    this.request('semantic.enable', { type: 'semantic-enable', index });
    m.semanticApplied = true;
    m.semanticDeferred = false;
  }

  /** Turns recall off for member `index`, saying why. */
  disableSemantic(index, why) {
    this.ensureOpen(index);
    const m = this.members[index];
    m.semantic = { weights: null, whyOff: why };
    this.request('semantic.disable', { type: 'semantic', name: 'disable', index, args: [why] });
    m.semanticApplied = true;
    m.semanticDeferred = false;
  }

  // Turns recall off, saying why, for every memory that would load
  // `weights`: at once where it is open, else when it opens.
  #semanticOff(weights, why) {
    for (const [index, m] of this.members.entries()) {
      if (m.semantic.weights !== weights) continue;
      m.semantic = { weights: null, whyOff: why };
      m.semanticApplied = false;
      m.semanticDeferred = false;
      if (m.open && this.#live && !m.closed) {
        this.request('semantic.disable', { type: 'semantic', name: 'disable', index, args: [why] });
        m.semanticApplied = true;
      }
    }
  }

  free(iface, name, args) {
    this.#releaseClosed();
    return this.request(`${iface}.${kebab(name)}`, { type: 'free', iface, name, args });
  }

  close(index) {
    const m = this.members[index];
    if (m.closed) return;
    m.closed = true;
    this.#releaseClosed();
  }

  #releaseClosed() {
    for (const [index, m] of this.members.entries()) {
      if (m.closed && m.open && this.#live) {
        m.open = false;
        this.request('store.memory.drop', { type: 'drop', index });
      }
    }
    if (this.members.every((m) => m.closed)) this.#stop();
  }
}

const snapshotInfo = (s) => ({
  takenUnix: Number(s.takenUnix),
  utcOffsetMinutes: s.utcOffsetMinutes,
  notes: s.notes,
  message: s.message,
});

const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

// Where a memory's project directory is preopened read-only (`-<i>` in a
// group), as the Rust host does: not a name the store uses at its root.
const GUEST_PROJECT = '/project';

// The team directory resolved, created (with its parents) when missing. It
// is preopened read-write, so it must be a real folder where it is named: a
// symbolic link (to another folder, to `/`, or dangling) would give its
// target the team's files, and is refused with `invalid-options` naming the
// link. Links among its parents are followed, as for any path.
function prepareTeamDir(given) {
  const dir = resolve(given); // lexically: `link/.` is looked at as `link`
  if (basename(given) === '..' || basename(dir) === '') {
    throw new MemoryError('invalid-options', `the team directory \`${given}\` does not end in a folder name; give the project's \`.agent-memory\` folder`);
  }
  const isLink = () => lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  const linked = () => {
    let to = '';
    try {
      to = ` (to \`${readlinkSync(dir)}\`)`;
    } catch {
      // named without its target
    }
    return new MemoryError(
      'invalid-options',
      `the team directory \`${dir}\` is a symbolic link${to}; the team directory must be a real folder inside the project: replace the link with a real folder`,
    );
  };
  if (isLink()) throw linked();
  mkdirSync(dir, { recursive: true });
  const real = realpathSync(dir);
  // Made a link meanwhile, or something else that leads elsewhere (a
  // junction): it must resolve to its folder joined with its name.
  if (real !== join(realpathSync(dirname(dir)), basename(dir))) {
    if (isLink()) throw linked();
    throw new MemoryError('invalid-options', `the team directory \`${dir}\` leads to \`${real}\`, outside the folder that holds it; replace it with a real folder`);
  }
  return real;
}

function member(spec, guestRoot, guestProject) {
  if (!spec || typeof spec !== 'object') throw new TypeError('each memory needs an options object {root, project, ...}');
  mkdirSync(spec.root, { recursive: true });
  let team;
  if (spec.teamDir !== undefined && spec.teamDir !== null) {
    team = prepareTeamDir(String(spec.teamDir));
    if (team === realpathSync(spec.root)) {
      throw new MemoryError('invalid-options', `the team directory \`${team}\` is the memory root; give the project's \`.agent-memory\` folder`);
    }
  }
  const pinned = parseNow(spec.now);
  let offset;
  let followsSystemZone = false;
  if (spec.utcOffsetMinutes !== undefined && spec.utcOffsetMinutes !== null) offset = spec.utcOffsetMinutes;
  else if (pinned) offset = pinned.offset;
  else {
    offset = localOffset();
    followsSystemZone = true;
  }
  let projectDir;
  if (spec.projectDir !== undefined && spec.projectDir !== null) {
    projectDir = realpathSync(String(spec.projectDir));
    if (!statSync(projectDir).isDirectory()) {
      throw new TypeError(`the project directory \`${spec.projectDir}\` is not a directory; pass the project's root folder`);
    }
  }
  return {
    root: realpathSync(spec.root),
    guestRoot,
    projectDir,
    guestProject: projectDir === undefined ? undefined : guestProject,
    project: String(spec.project),
    fixedUnix: pinned ? BigInt(pinned.unix) : undefined,
    offset,
    followsSystemZone,
    limits: {
      maxInjectBytes: spec.maxInjectBytes ?? undefined,
      maxWriteBytes: spec.maxWriteBytes ?? undefined,
      maxReadBytes: spec.maxReadBytes ?? undefined,
      lockLeaseMs: spec.lockLeaseMs ?? undefined,
      lockWaitMs: spec.lockWaitMs ?? undefined,
      historyMaxVersions: spec.historyMaxVersions ?? undefined,
      historyMaxBytes: spec.historyMaxBytes === undefined || spec.historyMaxBytes === null ? undefined : BigInt(spec.historyMaxBytes),
    },
    secretPolicy: word(spec.secretPolicy ?? 'block', SECRET_POLICIES, 'invalid-options', 'secret policy'),
    source: spec.source ?? '',
    team,
    // Beside the root, never the root itself.
    guestTeam: team === undefined ? undefined : guestRoot === '/' ? '/agent-memory-team' : `${guestRoot}-team`,
    scope: word(spec.scope ?? 'personal', SCOPES, 'invalid-options', 'scope'),
    review: (spec.review ?? []).map((s) => word(s, SCOPES, 'invalid-options', 'review scope')),
    semantic: choose(spec.semantic, spec.weights, (message) => new MemoryError('invalid-options', message)),
    // Whether the open handle was given its semantic setting (`enable` at
    // the first search, `disable` at open).
    semanticApplied: false,
    // The open handle was told `disable(DEFERRED)`: the model is not loaded
    // yet, and a search that needs it loads it and runs again.
    semanticDeferred: false,
    open: false,
    closed: false,
  };
}

const clock = (m) => ({ utcOffsetMinutes: m.offset, fixedUnixSeconds: m.fixedUnix });
const witOptions = (m) => ({
  root: m.guestRoot,
  project: m.project,
  clock: clock(m),
  limits: m.limits,
  secretPolicy: m.secretPolicy,
  source: m.source,
  projectDir: m.guestProject,
  teamDir: m.guestTeam,
  scope: m.scope,
  review: m.review,
});

// Releases the handles of memories that were never closed, when collected.
const finalizer = new FinalizationRegistry(({ group, index }) => {
  try {
    group.close(index);
  } catch {
    // Best effort: the worker may be gone already.
  }
});

/**
 * Opens several memories in one instance of the component, in the order
 * given. Each root is preopened at a guest directory of its own
 * (`/memory-0`, `/memory-1`, ...) and each memory reads and writes only its
 * own root. The memories share the instance's fate: a trap or a limit in one
 * restarts it, and every memory of the group reopens on its next call. The
 * instance gets the largest memory cap and call timeout among the options.
 *
 * @param {Array<{root: string, project: string} & object>} specs root, project and `Memory.open` options each
 * @returns {Memory[]}
 * @throws {MemoryError} `invalid-options` for the first memory the component refuses (then none stays open)
 */
export function openGroup(specs) {
  if (!Array.isArray(specs) || specs.length === 0) throw new TypeError('openGroup needs a non-empty array of options');
  const group = new Group(specs);
  const memories = [];
  try {
    for (let index = 0; index < specs.length; index++) memories.push(new Memory(group, index));
  } catch (error) {
    for (let index = 0; index < specs.length; index++) group.close(index);
    throw error;
  }
  return memories;
}

/**
 * An open memory: a handle on one root and project in a sandboxed instance
 * of the component. Make one with `Memory.open` (an instance of its own,
 * where the root is the guest's `/`) or `openGroup`. Release it with
 * `close()` (or `using`); a memory that is garbage-collected unclosed is
 * released then. Several memories, in one process or many, may share a
 * root: the component serializes writes with a lock file.
 */
export class Memory {
  #group;
  #index;
  #info;

  /**
   * Opens `root` (created if missing) for `project` (a path, only hashed into
   * the project's storage slug).
   *
   * @param {string} root the memory directory, the only one the component sees
   * @param {string} project the project path, e.g. the repository's git root
   * @param {object} [options] see `MemoryOptions` in agent-memory.d.ts
   * @throws {MemoryError} `invalid-options`
   */
  static open(root, project, options = {}) {
    return openGroup([{ ...options, root, project }])[0];
  }

  /** @private use `Memory.open` or `openGroup` */
  constructor(group, index) {
    if (!(group instanceof Group)) throw new TypeError('use Memory.open or openGroup to open a memory');
    this.#group = group;
    this.#index = index;
    this.#info = this.info();
    finalizer.register(this, { group, index }, this);
  }

  /** Releases the handle in the component. Idempotent; later calls throw. */
  close() {
    finalizer.unregister(this);
    this.#group.close(this.#index);
  }

  /** `using memory = Memory.open(...)` closes it at the end of the scope. */
  [Symbol.dispose ?? Symbol.for('nodejs.dispose')]() {
    this.close();
  }

  /** True when `other` was opened in the same instance (`openGroup`) as this memory. */
  sharesInstanceWith(other) {
    return other instanceof Memory && this.#group === other.#group;
  }

  /** True once `close()` ran. */
  get closed() { return this.#group.members[this.#index].closed; }
  /** The memory root (real path): the only directory of the host this memory sees. */
  get root() { return this.#group.members[this.#index].root; }
  /** Where the root is preopened in the instance: `/`, or `/memory-N` in a group. */
  get guestRoot() { return this.#group.members[this.#index].guestRoot; }
  /** The project path as given. */
  get project() { return this.#group.members[this.#index].project; }
  /** `<sanitized-basename>-<8 hex>`, e.g. `my-app-1a2b3c4d`. */
  get projectSlug() { return this.#info.projectSlug; }
  /** `projects/<slug>`, relative to the root. */
  get projectDir() { return this.#info.projectDir; }
  /** Today's local date (`YYYY-MM-DD`), asked of the component now. */
  get today() { return this.info().today; }

  #call(name, ...args) {
    return this.#group.method(this.#index, name, args);
  }

  /** `{projectSlug, projectDir, today}`. */
  info() {
    const i = this.#call('info');
    return { projectSlug: i.projectSlug, projectDir: i.projectDir, today: i.today };
  }

  /** The limits in force: the defaults or the overrides this memory was opened with. */
  limits() {
    return Object.fromEntries(Object.entries(this.#call('limits')).map(([k, v]) => [k, Number(v)]));
  }

  /**
   * Stores content in `long-term` (MEMORY.md), `scratchpad`, `daily` (today's
   * log) or `note` (needs `name`); `mode` is `append` or `overwrite`. The
   * previous content is recorded in history first; the content passes the
   * secret policy.
   * @throws {MemoryError} `invalid-target`, `invalid-mode`, `missing-name`,
   *   `invalid-name`, `secret-detected`, `not-a-file`, `busy`, `io`
   */
  write(target, content, mode = 'append', name = undefined) {
    const t = word(target, WRITE_TARGETS, 'invalid-target', 'write target');
    const m = word(mode, WRITE_MODES, 'invalid-mode', 'write mode');
    return receipt(this.#call('write', t, content, m, name ?? undefined));
  }

  /**
   * `write` with `overwrite`, only while the file still holds the text an
   * editor started from: its bytes must hash to `baseSha256` (SHA-256 of
   * the base text, 64 lowercase hex digits; a missing file hashes as `''`).
   * The check and the write are one change under the store's lock.
   * @throws {MemoryError} `conflict` (the file changed since; nothing was
   *   written), `invalid-arguments` (not 64 lowercase hex digits), then
   *   those of `write`
   */
  writeIfUnchanged(target, content, baseSha256, name = undefined) {
    const t = word(target, WRITE_TARGETS, 'invalid-target', 'write target');
    return receipt(this.#call('writeIfUnchanged', t, content, name ?? undefined, baseSha256));
  }

  /**
   * A memory file's text, or `null` when it does not exist. `daily` takes
   * `name` = `YYYY-MM-DD` (default today); `note` needs `name`.
   */
  read(source, name = undefined) {
    const s = word(source, READ_SOURCES, 'invalid-target', 'read source');
    return this.#call('read', s, name ?? undefined) ?? null;
  }

  /** Every `.md` file this project can see: `[{path, bytes}]`, sorted by path. */
  listFiles() {
    return this.#call('listFiles').map((f) => ({ path: f.path, bytes: Number(f.bytes), stale: [...f.stale] }));
  }

  /** Appends `### HH:MM — heading` and the trimmed body to today's log. */
  appendDaily(heading, body) {
    return receipt(this.#call('appendDaily', heading, body));
  }

  /**
   * Searches MEMORY.md, the project's notes and daily logs. `mode` is
   * `ranked` (words, not substrings: identifiers split, light stemming,
   * relevance with names and headings weighted, time words such as
   * `yesterday` restricting daily logs) or `literal` (the seeds'
   * case-insensitive substring search).
   * @throws {MemoryError} `invalid-mode`, `invalid-arguments` (too many distinct terms)
   */
  search(query, mode = 'ranked') {
    const m = word(mode, SEARCH_MODES, 'invalid-mode', 'search mode');
    return searchResults(this.#group.method(this.#index, 'search', [query, m], m === 'ranked', resultsNeedModel));
  }

  /**
   * `search`, its best `limit` hits only, and `total`: how many files the
   * whole search returns (at most 100). A ranked search then re-reads only
   * the files of the hits it returns. `{terms, hits, total}`; pass it to
   * `renderSearch` like any results.
   * @throws {MemoryError} `invalid-arguments` (limit 0, too many terms), `invalid-mode`
   */
  searchTop(query, limit, mode = 'ranked') {
    const m = word(mode, SEARCH_MODES, 'invalid-mode', 'search mode');
    const r = this.#group.method(this.#index, 'searchTop', [query, m, limit], m === 'ranked', resultsNeedModel);
    return { ...searchResults(r), total: r.total };
  }

  /** Renders results for a model, at most `maxBytes` (default: the read cap). */
  renderSearch(results, maxBytes = undefined) {
    const wit = {
      terms: results.terms.map((t) => ({ term: t.term, count: t.count })),
      hits: results.hits.map((h) => ({ ...h, date: h.date ?? undefined })),
    };
    return this.#call('renderSearch', wit, maxBytes ?? undefined);
  }

  /**
   * Replaces the one occurrence of `oldText` in a file with `newText` (may be
   * empty), atomically. `name` is the note name for `note` and the date
   * (`YYYY-MM-DD`, default today) for `daily`. The new text passes the
   * secret policy. On any error the file is unchanged.
   * @throws {MemoryError} `invalid-arguments`, `not-found` (no such file, or
   *   `oldText` not in it), `ambiguous` (more than one occurrence),
   *   `secret-detected`, the name and date errors of `read`, `not-a-file`, `busy`, `io`
   */
  edit(target, oldText, newText, name = undefined) {
    const t = word(target, WRITE_TARGETS, 'invalid-target', 'edit target');
    const r = this.#call('edit', t, name ?? undefined, oldText, newText);
    return {
      path: r.path,
      line: r.line,
      bytes: Number(r.bytes),
      warnings: [...r.warnings],
      budget: budget(r.budget),
      message: r.message,
    };
  }

  /**
   * Deletes a note (nested names allowed); its history stays, so `restore`
   * can bring it back. A missing note is a success with `existed: false`.
   * @throws {MemoryError} `missing-name`, `invalid-name`, `not-a-file`, `busy`, `io`
   */
  deleteNote(name) {
    const r = this.#call('deleteNote', name);
    return { path: r.path, existed: r.existed, bytes: Number(r.bytes), budget: budget(r.budget), message: r.message };
  }

  /**
   * Moves a note to a new name, creating and removing topic folders as needed.
   * @throws {MemoryError} `not-found`, `already-exists`, `invalid-name`, `not-a-file`, `busy`, `io`
   */
  renameNote(name, newName) {
    const r = this.#call('renameNote', name, newName);
    return { from: r.from, to: r.to, budget: budget(r.budget), message: r.message };
  }

  /**
   * The recorded versions of one file, newest first, at most `limit` (all
   * when omitted). `source` and `name` as in `read`.
   * @throws {MemoryError} `invalid-arguments` (limit 0), the name and date errors of `read`
   */
  history(source, name = undefined, limit = undefined) {
    const s = word(source, READ_SOURCES, 'invalid-target', 'history source');
    return this.#call('history', s, name ?? undefined, limit ?? undefined).map(version);
  }

  /**
   * Puts a file back to a version from `history` (e.g. `v12`): a deleted
   * note is recreated; a version from before the file existed deletes it.
   * The restore is recorded too, so it can be undone.
   * @throws {MemoryError} `not-found` (an unknown, pruned or another project's id), `busy`, `io`
   */
  restore(versionId) {
    return receipt(this.#call('restore', versionId));
  }

  /**
   * The text a file held at a recorded version (an id from `history` or
   * `lastChange`): what it held just before that change, or `null` when the
   * file did not exist then. Reads only.
   * @throws {MemoryError} `not-found` (a malformed, unknown, pruned or another project's id)
   */
  readVersion(versionId) {
    return this.#call('readVersion', versionId) ?? null;
  }

  /**
   * The consolidation plan for the agent's own model; changes nothing.
   * Throws `not-found` for an empty memory.
   */
  consolidationPlan() {
    return this.#call('consolidationPlan');
  }

  /**
   * The model's tool calls waiting for review (`review: ['personal']`),
   * oldest first: `[{id, timeUnix, utcOffsetMinutes, source, scope, tool,
   * arguments, diff}]`.
   */
  pendingChanges() {
    return this.#call('pendingChanges').map((p) => ({ ...p, timeUnix: Number(p.timeUnix) }));
  }

  /**
   * Apply the queued call `id` (checked again); returns the tool's answer.
   * That it is still pending, its change and the decision are one step
   * under the store's lock: of two approvals at once one applies it, the
   * other finds it decided.
   */
  approve(id) {
    return this.#call('approve', id);
  }

  /** Drop the queued call `id` and its text. */
  reject(id) {
    return this.#call('reject', id);
  }

  /**
   * Remove memory files as one change that undo brings back: `project`,
   * `long_term` or `all`. Returns the paths removed.
   */
  clear(what = 'project') {
    return this.#call('clear', word(what, ['project', 'long-term', 'all'], 'invalid-target', 'clear target')).removed;
  }

  /** The most recent change this project can see, or `null`: what `undo` would undo. */
  lastChange() {
    const v = this.#call('lastChange');
    return v === undefined || v === null ? null : version(v);
  }

  /**
   * Undo the most recent change this project can see: found and restored
   * under the store's lock, as one change, so two undos at once end as one
   * after the other would. With `expected` (an id from `lastChange`) it
   * undoes only while that is still the last change. `null` when nothing
   * was recorded.
   * @throws {MemoryError} `conflict` (`expected` is no longer the last
   *   change; nothing was changed), `not-found` (`expected` is not a version
   *   id), then those of `restore`
   */
  undo(expected = undefined) {
    const r = this.#call('undo', expected ?? undefined);
    return r === undefined || r === null ? null : receipt(r);
  }

  /**
   * Secrets already stored anywhere under the root, then in every version
   * saved in history, by the rules of the write guard, in path order:
   * `[{path, line, ruleId, masked, version}]`, never the values. `version`
   * is null for the file as it is now, `v12` for a saved version; `line` 0
   * means the secret is in the file or folder name `path`.
   */
  scanSecrets() {
    return this.#call('scanSecrets').map((s) => ({
      path: s.path,
      line: s.line,
      ruleId: s.ruleId,
      masked: s.masked,
      version: s.version ?? null,
    }));
  }

  /**
   * Redacts every secret in every version saved in history, in place (ids
   * kept, the purge recorded): `{versions, secrets, appendsSaved}`. Live
   * files and names are not changed. Errors: `busy`, `io`.
   */
  purgeSecrets() {
    const p = this.#call('purgeSecrets');
    return { versions: p.versions, secrets: p.secrets, appendsSaved: p.appendsSaved };
  }

  /**
   * Copies the project's personal notes into the team directory's
   * `snapshot/` (replacing the previous one) with a `TAKEN` time:
   * `{takenUnix, utcOffsetMinutes, notes, message}`. Errors: `no-team-dir`,
   * `secret-detected` (nothing written), `busy`, `io`.
   */
  takeSnapshot() {
    return snapshotInfo(this.#call('takeSnapshot'));
  }

  /**
   * Applies the team snapshot to the project's notes, recorded in history
   * as imports. Errors: `no-team-dir`, `not-found`, `conflict` (nothing
   * applied), `busy`, `io`.
   */
  applySnapshot() {
    return snapshotInfo(this.#call('applySnapshot'));
  }

  /** The `<memory>` block for the system prompt, or `null` when there is nothing to show. */
  contextBlock() {
    return this.#call('contextBlock') ?? null;
  }

  /** Saves a compaction summary to today's log under `compaction summary (N msgs)`. */
  flushCompaction(summary, messageCount = undefined) {
    return receipt(this.#call('flushCompaction', summary, messageCount ?? undefined));
  }

  /**
   * Runs a model's tool call on this memory. `args` is its JSON text, or an
   * object to serialize. The name is passed through: tools the component
   * adds need no change here. Every tool runs whatever set the model was
   * given (`memory_search` takes `mode`, `ranked` by default).
   * @throws {MemoryError} `unknown-tool`, `invalid-arguments`, and the operation's errors
   */
  callTool(name, args) {
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    return this.#group.method(this.#index, 'callTool', [name, text], name === 'memory_search', replyNeedsModel);
  }

  /**
   * Turns semantic recall off for this memory, saying why: ranked search is
   * then exactly lexical, and `semanticStatus()` and the searches where
   * meaning would have decided report `why`. It stays off until the memory
   * is opened again.
   */
  disableSemantic(why = 'turned off by the host') {
    this.#group.disableSemantic(this.#index, why);
  }

  /**
   * Whether semantic recall is on, with which model and how far indexing is,
   * or why it is off: `{on, model, chunks, ready, whyOff, percent, line}`;
   * `line` is what `agent-memory status` prints. Loads the model when recall
   * is on and it is not loaded yet; reads the files that changed, embeds
   * nothing.
   */
  semanticStatus() {
    return semanticStatus(this.#group.semantic(this.#index, 'getStatus', []));
  }

  /**
   * Embeds the chunks that have no vector yet, at most `limit` of them (all
   * when omitted), and saves them under the root's `.store/vectors/`. Runs in
   * rounds of 16 chunks (about 2 s each), calling `onProgress(status)` after
   * each. Returns the status; with recall off, at once. Stops early when a
   * round saved nothing (another process held the store's lock): call it
   * again.
   */
  indexVectors(limit = undefined, onProgress = undefined) {
    let status = this.semanticStatus();
    let left = limit ?? null;
    while (status.on && status.ready < status.chunks && (left === null || left > 0)) {
      const round = left === null ? INDEX_ROUND : Math.min(INDEX_ROUND, left);
      const before = status.ready;
      status = semanticStatus(this.#group.semantic(this.#index, 'index', [round]));
      if (left !== null) left -= round;
      onProgress?.(status);
      if (status.ready === before) break;
    }
    return status;
  }

  /**
   * `[{name, description, parametersSchema, parameters}]` for the tools of
   * `set`: `seed` (memory_write, memory_read, memory_search), `full` (those
   * and memory_edit, memory_delete, memory_rename, memory_history,
   * memory_restore, memory_refresh) or `anthropic` (only `memory`,
   * Anthropic's memory tool).
   * @throws {MemoryError} `invalid-arguments` for another set
   */
  toolDefinitions(set = 'full') {
    const s = word(set, TOOL_SETS, 'invalid-arguments', 'tool set');
    return this.#group.free('tools', 'toolDefinitions', [s]).map((d) => ({
      name: d.name,
      description: d.description,
      parametersSchema: d.parametersSchema,
      parameters: JSON.parse(d.parametersSchema),
    }));
  }

  /** Text for the system prompt that tells a model how to use the tools of `set`. */
  usagePrompt(set = 'full') {
    const s = word(set, TOOL_SETS, 'invalid-arguments', 'tool set');
    return this.#group.free('tools', 'usagePrompt', [s]);
  }

  /** One token per 4 bytes of UTF-8, rounded up (a bigint). */
  estimateTokens(text) {
    return this.#group.free('prompt', 'estimateTokens', [text]);
  }

  /** `base + estimateTokens(block)`, saturating at 2^64 - 1 (a bigint). */
  effectiveReserve(base, block = undefined) {
    return this.#group.free('prompt', 'effectiveReserve', [BigInt(base), block ?? undefined]);
  }

  /** `preamble + "\n\n---\n\n" + block`; the preamble alone for a missing or empty block. */
  appendMemoryBlock(preamble, block = undefined) {
    return this.#group.free('prompt', 'appendMemoryBlock', [preamble, block ?? undefined]);
  }

  /** `compaction summary (N msgs)`, or `compaction summary`. */
  compactionHeading(messageCount = undefined) {
    return this.#group.free('prompt', 'compactionHeading', [messageCount ?? undefined]);
  }
}
