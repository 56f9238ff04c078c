// Persistent Markdown memory for coding agents, from Node.js.
//
// This module runs the `agent:memory` WebAssembly component (built from this
// repository's `guest/`) through jco: `npm run build` transpiles the component
// into `gen/` (core wasm + JS glue), and every `Memory` instantiates it with
// its own WASI imports from `@bytecodealliance/preview2-shim`, whose only
// preopened directory is that memory's root, as the guest's `/`. No
// environment, no arguments, no network.
//
//     import { Memory } from './agent-memory.js';
//     const memory = Memory.open('/tmp/agent-memory', '/home/me/src/my-app');
//     memory.write('long-term', '- prefers tabs');
//     const block = memory.contextBlock();        // for the system prompt, or null
//     const reply = memory.callTool('memory_search', { query: 'tabs' });
//
// A refusal of the memory throws `MemoryError` (`.kind` in the WIT spelling,
// e.g. `invalid-name`, and `.message`); a trap throws `MemoryTrap`, drops the
// instance, and the next call starts a fresh one with the same options.
//
// The shim enforces the sandbox in JavaScript (it resolves guest paths under
// the preopen), not in the kernel as wasmtime does: a weaker boundary than the
// Rust and Python hosts give.

import { readFileSync, mkdirSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { filesystem } from '@bytecodealliance/preview2-shim';
import { WASIShim } from '@bytecodealliance/preview2-shim/instantiation';

const GEN_DIR = join(dirname(fileURLToPath(import.meta.url)), 'gen');

let transpiled;
try {
  transpiled = await import('./gen/agent_memory.js');
} catch (error) {
  throw new Error(
    `the transpiled component is missing in ${GEN_DIR}: run \`npm run build\` in hosts/node ` +
      `(after \`cargo build -p agent-memory\`) (${error.message})`,
  );
}

/** Every `error-kind` of the WIT. */
export const ERROR_KINDS = Object.freeze([
  'not-open', 'invalid-options', 'invalid-target', 'invalid-mode', 'missing-name',
  'invalid-name', 'invalid-date', 'invalid-arguments', 'unknown-tool', 'not-found',
  'not-a-file', 'busy', 'io',
]);

// The WIT enum words, and the tool words (`long_term`) people also type.
const TARGETS = new Map([
  ['long-term', 'long-term'], ['long_term', 'long-term'], ['scratchpad', 'scratchpad'],
  ['daily', 'daily'], ['note', 'note'],
]);
const MODES = new Set(['append', 'overwrite']);

/** The memory refused an operation; `kind` is the WIT error kind. */
export class MemoryError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'MemoryError';
    this.kind = kind;
  }
}

/** The component trapped; the next call starts a fresh instance. */
export class MemoryTrap extends Error {
  constructor(operation, cause) {
    super(`the memory component trapped in ${operation}: ${cause?.message ?? cause}`, { cause });
    this.name = 'MemoryTrap';
    this.operation = operation;
  }
}

// Core modules are compiled once per process and shared by every instance.
const coreModules = new Map();
function getCoreModule(path) {
  let module = coreModules.get(path);
  if (!module) {
    module = new WebAssembly.Module(readFileSync(join(GEN_DIR, path)));
    coreModules.set(path, module);
  }
  return module;
}

// WORKAROUND for @bytecodealliance/preview2-shim (seen in 0.17 to 0.26.1):
// Rust's std opens files for writing with the `mutate-directory` descriptor
// flag, and the shim's `Descriptor.openAt` rejects that flag ("unsupported"),
// so every write of the guest would fail while reads work. The flag only
// matters for directory descriptors, so it is cleared for non-directory opens.
// The patch is an own property on each descriptor this memory's guest can
// reach (its preopen and what it opens from there): no global prototype is
// touched, and another user of the shim in the same process is unaffected.
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

function importsFor(root, workaround) {
  const fs = filesystem.createFilesystem({ preopens: { '/': root } });
  const directories = fs.preopens.getDirectories();
  if (workaround) {
    for (const [descriptor] of directories) patchOpenAt(descriptor);
  }
  const shim = new WASIShim({
    filesystem: { types: fs.types, preopens: { getDirectories: () => [...directories] } },
    sandbox: { env: {}, args: [], enableNetwork: false },
  });
  return shim.getImportObject();
}

function parseNow(now) {
  if (now === undefined || now === null) return null;
  if (now instanceof Date) {
    if (Number.isNaN(now.getTime())) throw new TypeError('`now` is an invalid Date');
    return { unix: Math.floor(now.getTime() / 1000), offset: -now.getTimezoneOffset() };
  }
  if (typeof now !== 'string') throw new TypeError('`now` must be an RFC 3339 string or a Date');
  const m = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/.exec(
    now.trim(),
  );
  const ms = Date.parse(now.trim());
  if (!m || Number.isNaN(ms)) {
    throw new TypeError(`\`now\` ${JSON.stringify(now)} is not RFC 3339 with an offset (e.g. 2026-05-30T09:15:00+02:00)`);
  }
  const offset = m[1] ? 0 : (m[2] === '-' ? -1 : 1) * (Number(m[3]) * 60 + Number(m[4]));
  return { unix: Math.floor(ms / 1000), offset };
}

const localOffset = () => -new Date().getTimezoneOffset();
const toNumber = (v) => (v === undefined || v === null ? null : Number(v));

function enumWord(word, table, kind, what) {
  const value = table.get(word);
  if (value) return value;
  throw new MemoryError(kind, `unknown ${what} \`${word}\`; expected one of ${[...new Set(table.values())].join(', ')}`);
}

function receipt(r) {
  return { path: r.path, bytesWritten: Number(r.bytesWritten), truncatedFrom: toNumber(r.truncatedFrom), message: r.message };
}

/**
 * One memory root opened for one project: a sandboxed instance of the component.
 * Make one with `Memory.open`. Several instances, in one process or many, may
 * share a root: the component serializes writes with a lock file.
 */
export class Memory {
  #root;
  #project;
  #fixedUnix;
  #offset;
  #followSystemZone;
  #caps;
  #workaround;
  #exports = null;
  #opened = null;

  /**
   * Opens `root` (created if missing) for `project` (a path, only hashed into
   * the project's storage slug).
   *
   * @param {string} root the memory directory, the only one the component sees
   * @param {string} project the project path, e.g. the repository's git root
   * @param {object} [options]
   * @param {string|Date} [options.now] pin "now": RFC 3339 with an offset (the
   *   offset becomes the local UTC offset), or a Date
   * @param {number} [options.utcOffsetMinutes] local offset, east positive;
   *   default: that of `now`, else the system's, re-read before each operation
   * @param {number} [options.maxInjectBytes] cap of the context block (32768)
   * @param {number} [options.maxWriteBytes] per-write content cap (65536)
   * @param {number} [options.maxReadBytes] cap of reads and rendered search (32768)
   * @param {boolean} [options.shimOpenAtWorkaround] keep `true`; `false` only
   *   exists to prove the shim workaround is needed
   * @throws {MemoryError} `invalid-options`
   */
  static open(root, project, options = {}) {
    return new Memory(root, project, options);
  }

  constructor(root, project, options = {}) {
    mkdirSync(root, { recursive: true });
    this.#root = realpathSync(root);
    this.#project = String(project);
    const pinned = parseNow(options.now);
    this.#fixedUnix = pinned ? BigInt(pinned.unix) : undefined;
    if (options.utcOffsetMinutes !== undefined && options.utcOffsetMinutes !== null) {
      this.#offset = options.utcOffsetMinutes;
      this.#followSystemZone = false;
    } else if (pinned) {
      this.#offset = pinned.offset;
      this.#followSystemZone = false;
    } else {
      this.#offset = localOffset();
      this.#followSystemZone = true;
    }
    this.#caps = {
      maxInjectBytes: options.maxInjectBytes ?? undefined,
      maxWriteBytes: options.maxWriteBytes ?? undefined,
      maxReadBytes: options.maxReadBytes ?? undefined,
    };
    this.#workaround = options.shimOpenAtWorkaround ?? true;
    this.#start();
  }

  #start() {
    const exports = transpiled.instantiate(getCoreModule, importsFor(this.#root, this.#workaround));
    this.#exports = exports;
    if (this.#followSystemZone) this.#offset = localOffset();
    this.#opened = this.#call('memory', 'open', [{ project: this.#project, clock: this.#clock(), caps: this.#caps }], false);
  }

  #clock() {
    return { utcOffsetMinutes: this.#offset, fixedUnixSeconds: this.#fixedUnix };
  }

  #call(iface, name, args, checkClock = true) {
    if (!this.#exports) this.#start();
    if (checkClock && iface === 'memory' && this.#followSystemZone) {
      const offset = localOffset();
      if (offset !== this.#offset) {
        this.#offset = offset;
        this.#call('memory', 'setClock', [this.#clock()], false);
      }
    }
    try {
      return this.#exports[iface][name](...args);
    } catch (error) {
      const payload = error?.payload;
      if (payload && typeof payload === 'object' && ERROR_KINDS.includes(payload.kind)) {
        throw new MemoryError(payload.kind, payload.message);
      }
      // Anything else is a trap (or a host import gone wrong): the instance
      // cannot be trusted any more; the next call starts a fresh one.
      this.#exports = null;
      throw new MemoryTrap(`${iface}.${name}`, error);
    }
  }

  /** The memory root (real path): the only directory the component sees. */
  get root() { return this.#root; }
  /** The project path as given. */
  get project() { return this.#project; }
  /** `<sanitized-basename>-<8 hex>`, e.g. `my-app-1a2b3c4d`. */
  get projectSlug() { return this.#opened.projectSlug; }
  /** `projects/<slug>`, relative to the root. */
  get projectDir() { return this.#opened.projectDir; }
  /** Today's local date (`YYYY-MM-DD`) when the instance was opened. */
  get today() { return this.#opened.today; }

  /**
   * Stores content in `long-term` (MEMORY.md), `scratchpad`, `daily` (today's
   * log) or `note` (needs `name`); `mode` is `append` or `overwrite`.
   * @returns {{path: string, bytesWritten: number, truncatedFrom: number|null, message: string}}
   * @throws {MemoryError} `invalid-target`, `invalid-mode`, `missing-name`,
   *   `invalid-name`, `not-a-file`, `busy`, `io`
   */
  write(target, content, mode = 'append', name = undefined) {
    const t = enumWord(target, TARGETS, 'invalid-target', 'write target');
    if (!MODES.has(mode)) throw new MemoryError('invalid-mode', `unknown write mode \`${mode}\`; expected append or overwrite`);
    return receipt(this.#call('memory', 'write', [t, content, mode, name ?? undefined]));
  }

  /**
   * A memory file's text, or `null` when it does not exist. `daily` takes
   * `name` = `YYYY-MM-DD` (default today); `note` needs `name`.
   */
  read(source, name = undefined) {
    const s = enumWord(source, TARGETS, 'invalid-target', 'read source');
    return this.#call('memory', 'read', [s, name ?? undefined]) ?? null;
  }

  /** Every `.md` file this project can see: `[{path, bytes}]`, sorted by path. */
  listFiles() {
    return this.#call('memory', 'listFiles', []).map((f) => ({ path: f.path, bytes: Number(f.bytes) }));
  }

  /** Appends `### HH:MM — heading` and the trimmed body to today's log. */
  appendDaily(heading, body) {
    return receipt(this.#call('memory', 'appendDaily', [heading, body]));
  }

  /**
   * Keyword search over MEMORY.md, the project's notes and daily logs.
   * @returns {{terms: {term: string, count: number}[], hits: object[]}}
   */
  search(query) {
    const r = this.#call('memory', 'search', [query]);
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

  /** Renders results for a model, at most `maxBytes` (default: the read cap). */
  renderSearch(results, maxBytes = undefined) {
    const wit = {
      terms: results.terms.map((t) => ({ term: t.term, count: t.count })),
      hits: results.hits.map((h) => ({ ...h, date: h.date ?? undefined })),
    };
    return this.#call('memory', 'renderSearch', [wit, maxBytes ?? undefined]);
  }

  /** The `<memory>` block for the system prompt, or `null` when there is nothing to show. */
  contextBlock() {
    return this.#call('memory', 'contextBlock', []) ?? null;
  }

  /** Saves a compaction summary to today's log under `compaction summary (N msgs)`. */
  flushCompaction(summary, messageCount = undefined) {
    return receipt(this.#call('memory', 'flushCompaction', [summary, messageCount ?? undefined]));
  }

  /** `[{name, description, parametersSchema, parameters}]` for the model's tools. */
  toolDefinitions() {
    return this.#call('tools', 'toolDefinitions', []).map((d) => ({
      name: d.name,
      description: d.description,
      parametersSchema: d.parametersSchema,
      parameters: JSON.parse(d.parametersSchema),
    }));
  }

  /** Text for the system prompt that tells the model how to use the tools. */
  usagePrompt() {
    return this.#call('tools', 'usagePrompt', []);
  }

  /**
   * Runs a model's tool call. `args` is its JSON text, or an object to serialize.
   * @throws {MemoryError} `unknown-tool`, `invalid-arguments`, and the operation's errors
   */
  callTool(name, args) {
    const json = typeof args === 'string' ? args : JSON.stringify(args);
    return this.#call('tools', 'callTool', [name, json]);
  }

  /** One token per 4 bytes of UTF-8, rounded up (a bigint). */
  estimateTokens(text) {
    return this.#call('prompt', 'estimateTokens', [text]);
  }

  /** `base + estimateTokens(block)`, saturating at 2^64 - 1 (a bigint). */
  effectiveReserve(base, block = undefined) {
    return this.#call('prompt', 'effectiveReserve', [BigInt(base), block ?? undefined]);
  }

  /** `preamble + "\n\n---\n\n" + block`; the preamble alone for a missing or empty block. */
  appendMemoryBlock(preamble, block = undefined) {
    return this.#call('prompt', 'appendMemoryBlock', [preamble, block ?? undefined]);
  }

  /** `compaction summary (N msgs)`, or `compaction summary`. */
  compactionHeading(messageCount = undefined) {
    return this.#call('prompt', 'compactionHeading', [messageCount ?? undefined]);
  }
}
