// Type declarations of the `agent-memory` package (agent-memory.js).

/** The default cap on an instance's linear memory: 256 MiB. */
export declare const DEFAULT_MAX_MEMORY_BYTES: number;
/** The default bound on one call: 30 000 ms. */
export declare const DEFAULT_CALL_TIMEOUT_MS: number;

/** The WIT `write-target` cases. */
export declare const WRITE_TARGETS: readonly WriteTarget[];
/** The WIT `read-source` cases. */
export declare const READ_SOURCES: readonly ReadSource[];
/** The WIT `write-mode` cases. */
export declare const WRITE_MODES: readonly WriteMode[];
/** The WIT `search-mode` cases. */
export declare const SEARCH_MODES: readonly SearchMode[];
/** The WIT `tool-set` cases. */
export declare const TOOL_SETS: readonly ToolSet[];
/** The WIT `secret-policy` cases. */
export declare const SECRET_POLICIES: readonly SecretPolicy[];
/** The WIT `scope` cases. */
export declare const SCOPES: readonly Scope[];
/** The team directory's name in a project: `.agent-memory`. */
export declare const TEAM_DIR_NAME: string;
/** The embedding weights file's name (semantic recall), shipped in the package's `gen/` when it was packed with the weights present. */
export declare const WEIGHTS_FILE: string;
/** The environment variable naming the weights file. */
export declare const ENV_WEIGHTS: string;
/** `off` (or `0`, `false`) turns semantic recall off, as for the CLI. */
export declare const ENV_SEMANTIC: string;
/** The WIT `operation` cases. */
export declare const OPERATIONS: readonly Operation[];

/** Where a write goes; the tool spelling `long_term` works too. */
export type WriteTarget = 'long-term' | 'scratchpad' | 'daily' | 'note';
/** Where a read comes from; the tool spelling `long_term` works too. */
export type ReadSource = 'long-term' | 'scratchpad' | 'daily' | 'note';
/** How a write combines with what is there. */
export type WriteMode = 'append' | 'overwrite';
/**
 * Which search runs: `ranked` (words, not substrings; relevance, stemming,
 * time words) or `literal` (the seeds' case-insensitive substring search).
 */
export type SearchMode = 'ranked' | 'literal';
/**
 * Which tool definitions a model is given: `seed` (memory_write, memory_read,
 * memory_search), `full` (those and memory_edit, memory_delete, memory_rename,
 * memory_history, memory_restore, memory_refresh) or `anthropic` (only
 * `memory`).
 */
export type ToolSet = 'seed' | 'full' | 'anthropic';
/**
 * What every path that stores text does with what looks like a credential:
 * refuse with `secret-detected`, store `[REDACTED:<rule-id>]` instead of each
 * value, or store it as given.
 */
export type SecretPolicy = 'block' | 'redact' | 'off';
/** Which store: the personal memory root, or the project's team directory. */
export type Scope = 'personal' | 'team';

/** A snapshot of the project's personal notes in the team directory. */
export interface SnapshotInfo {
  /** When it was taken, Unix seconds. */
  takenUnix: number;
  /** The taker's UTC offset then, minutes east. */
  utcOffsetMinutes: number;
  /** Notes it holds, or notes applied. */
  notes: number;
  /** One line for people. */
  message: string;
}
/** The change that replaced a recorded version. */
export type Operation = 'write' | 'append' | 'edit' | 'delete' | 'rename' | 'restore' | 'import';

/**
 * The WIT error kinds of contract 0.2 (a test compares them with wit/types.wit;
 * the runtime maps kinds by name and keeps no list). A kind a newer component adds arrives
 * by its name (the WIT `other(name)`), hence the open `string`.
 */
export type ErrorKind =
  | 'invalid-options'
  | 'invalid-target'
  | 'invalid-mode'
  | 'missing-name'
  | 'invalid-name'
  | 'invalid-date'
  | 'invalid-arguments'
  | 'unknown-tool'
  | 'not-found'
  | 'not-a-file'
  | 'busy'
  | 'io'
  | 'ambiguous'
  | 'already-exists'
  | 'secret-detected'
  | 'conflict'
  | 'no-team-dir'
  | (string & {});

/** The memory refused an operation. */
export declare class MemoryError extends Error {
  constructor(kind: ErrorKind, message: string);
  readonly name: 'MemoryError';
  /** The WIT error kind, e.g. `invalid-name`; match on it. */
  readonly kind: ErrorKind;
}

/** The component trapped, or ran past its call timeout or memory cap. */
export declare class MemoryTrap extends Error {
  constructor(operation: string, message: string, limit?: 'time' | 'memory' | null);
  readonly name: 'MemoryTrap';
  /** The WIT function, e.g. `store.search`. */
  readonly operation: string;
  /** Which limit stopped the call, or null for a plain trap. */
  readonly limit: 'time' | 'memory' | null;
}

/** How to open a memory, besides its root and project. */
export interface MemoryOptions {
  /** Pin "now": RFC 3339 with an offset (the offset becomes the local one), or a Date. */
  now?: string | Date | null;
  /** Local UTC offset in minutes, east positive; default that of `now`, else the system's (followed across DST). */
  utcOffsetMinutes?: number | null;
  /** Cap of the context block (default 32768, at least 512). */
  maxInjectBytes?: number;
  /** Per-write content cap (default 65536). */
  maxWriteBytes?: number;
  /** Cap of reads and rendered search (default 32768, at least 512). */
  maxReadBytes?: number;
  /** Age at which another writer's lock counts as abandoned (default 10000, at least 1000). */
  lockLeaseMs?: number;
  /** How long a write waits for the lock before `busy` (default 15000). */
  lockWaitMs?: number;
  /** Versions of each file kept in history (default 50; 0 turns history off). */
  historyMaxVersions?: number;
  /** Bytes of history in all, the oldest versions pruned first (default 64 MiB). */
  historyMaxBytes?: number | bigint;
  /** What to do with text that looks like a credential (default `block`); the host's setting, never the model's. */
  secretPolicy?: SecretPolicy;
  /** Who writes through this memory, recorded with every change in history: at most 128 bytes, no line break or control character. */
  source?: string;
  /** Cap of the instance's linear memory (default 256 MiB). */
  maxMemoryBytes?: number;
  /** Bound of one call (default 30 000 ms). */
  callTimeoutMs?: number;
  /**
   * The project's files, for staleness anchors: preopened read-only (the
   * shim refuses every write through it) and only ever hashed. Notes and
   * MEMORY.md that name project files (`src/auth.rs:42`) anchor them when
   * written; reads, listings, search hits and the context block then mark
   * `stale: src/auth.rs changed since <date>` once one changes. Default: none.
   */
  projectDir?: string;
  /**
   * The project's team memory, normally `<project root>/.agent-memory`
   * (created if missing), shared through git and preopened read-write:
   * tools then take `"scope": "team"`, the context block gets a team
   * section and search covers it. It must be a real folder: a symbolic
   * link there throws `MemoryError` `invalid-options` naming it.
   */
  teamDir?: string | null;
  /** Which store the typed methods act on (default `personal`; `team` needs `teamDir`). */
  scope?: Scope;
  /**
   * The review gate: the scopes whose changes made through `callTool` (the
   * model's) wait for `approve` instead of being applied (default none).
   */
  review?: Scope[];
  /**
   * Semantic recall (ranked search also finds the file that says it in
   * other words; docs/recall.md). Default: on, unless
   * `AGENT_MEMORY_SEMANTIC=off`; `true`: on whatever the environment says;
   * `false`: no model is given (the status says `the host gave no embedding
   * model` and searches carry no note; `disableSemantic` says why instead).
   * It is off, and `semanticStatus()` says why, when no weights file is
   * found or the component refuses it; nothing throws for that. The model is
   * loaded once per worker, shared by the memories of a group (the file is
   * read once per process), when a query needs it: at the first ranked
   * search or `memory_search` call with a word that no file holds (where
   * meaning decides; the search runs again with the model, so it answers as
   * a loaded model does), or at `semanticStatus()` / `indexVectors()`.
   * Writes, reads and searches whose words are all in some file never load it.
   */
  semantic?: boolean | null;
  /**
   * The embedding weights file (all-MiniLM-L6-v2 int8, from
   * `embed/scripts/derive.py`). Default: `AGENT_MEMORY_WEIGHTS` if set, else
   * the file shipped in this package, else
   * `<platform data dir>/agent-memory-models/all-minilm-l6-v2.int8.safetensors`.
   * The memories of a group must use the same file.
   */
  weights?: string | null;
}

/** Whether semantic recall is on, with which model and how far indexing is, or why it is off. */
export interface SemanticStatus {
  /** A model is set on this memory. */
  on: boolean;
  /** The model's name and the start of its weights' sha256, e.g. `all-MiniLM-L6-v2 (int8, 6ca9119d462f265a)`. */
  model: string | null;
  /** Chunks (about 64 word-pieces of a file each) search covers. */
  chunks: number;
  /** Of those, chunks with a vector; until all have one, ranked search is lexical and says `semantic: indexing N%`. */
  ready: number;
  /** Why recall is off, when it is. */
  whyOff: string | null;
  /** Whole percent of chunks with a vector (100 when there are none). */
  percent: number;
  /** `semantic: on, <model>, N chunks, P% indexed` or `semantic: off (<why>)`, as `agent-memory status` prints it. */
  line: string;
}

/** A model's tool call waiting for review. */
export interface PendingChange {
  id: string;
  timeUnix: number;
  utcOffsetMinutes: number;
  source: string;
  scope: Scope;
  tool: string;
  arguments: string;
  /** What it would change now, as a line diff per file, or why it would fail now. */
  diff: string;
}

/** One memory of `openGroup`. */
export interface GroupMember extends MemoryOptions {
  root: string;
  project: string;
}

export interface MemoryInfo {
  /** `<sanitized-basename>-<8 hex>`. */
  projectSlug: string;
  /** `projects/<slug>`. */
  projectDir: string;
  /** Today's local date, `YYYY-MM-DD`. */
  today: string;
}

/** The WIT `limits` record. */
export interface Limits {
  maxInjectBytes: number;
  maxWriteBytes: number;
  maxReadBytes: number;
  indexMaxLines: number;
  indexMaxBytes: number;
  maxSearchFileBytes: number;
  maxQueryTerms: number;
  wholeFileAppendMaxBytes: number;
  lockLeaseMs: number;
  lockWaitMs: number;
  historyMaxVersions: number;
  historyMaxBytes: number;
}

/** The outcome of a write (also of an append, a flush and a restore). */
/** Whether the text a call just wrote reaches the next context block. */
export type Reach = 'whole' | 'partly' | 'cut' | 'not-injected';

/** How full the injected memory is after a change (the WIT `budget` record). */
export interface Budget {
  /** Lines of MEMORY.md. */
  indexLines: number;
  indexMaxLines: number;
  /** Bytes of MEMORY.md. */
  indexBytes: number;
  indexMaxBytes: number;
  /** Bytes of the context block as `contextBlock()` returns it now; 0 when there is none. */
  blockBytes: number;
  blockMaxBytes: number;
  reach: Reach;
  /** For `partly` and `cut`: what was cut, why, and what to do instead. */
  warning: string | null;
}

export interface WriteReceipt {
  path: string;
  bytesWritten: number;
  truncatedFrom: number | null;
  /** What the model should know: values redacted, added lines that repeat an earlier one. */
  warnings: string[];
  /** How full the injected memory is now, and whether this write reaches the next block. */
  budget: Budget;
  /** For the model: one line, then the warnings, one a line, then the budget line and its warning. */
  message: string;
}

export interface EditReceipt {
  path: string;
  /** 1-based line where the replacement starts. */
  line: number;
  /** The file's size after the edit. */
  bytes: number;
  warnings: string[];
  budget: Budget;
  message: string;
}

export interface DeleteReceipt {
  path: string;
  /** Whether there was a note to delete. */
  existed: boolean;
  bytes: number;
  budget: Budget;
  message: string;
}

export interface RenameReceipt {
  from: string;
  to: string;
  budget: Budget;
  message: string;
}

/** A recorded version of a file: what it held just before a change. */
export interface Version {
  /** The id to `restore` it by, e.g. `v12`. */
  id: string;
  path: string;
  timeUnix: number;
  utcOffsetMinutes: number;
  operation: Operation;
  /** Its size; null when the file did not exist then. */
  bytes: number | null;
  /** The source label of the change (may be empty). */
  source: string;
  /** For a rename, the path on the other side. */
  otherPath: string | null;
}

/** A secret found in a stored file; never the value. */
export interface StoredSecret {
  /** Of the file, or, for a secret in a name (`line` 0), of the file or folder whose own name holds it. */
  path: string;
  /** 1-based; 0 means the secret is in the name. */
  line: number;
  ruleId: string;
  /** At most the first 4 characters of the value, then `…`. */
  masked: string;
  /** null for the file as it is now; `v12` for a version saved in history. */
  version: string | null;
}

/** What `purgeSecrets` did; all zero when no saved version held a secret. */
export interface PurgeReceipt {
  /** Saved versions whose content was redacted in place, ids kept. */
  versions: number;
  /** Secrets redacted, each distinct saved content counted once. */
  secrets: number;
  /** Of `versions`: appends' versions that now hold their own redacted copy. */
  appendsSaved: number;
}

export interface FileInfo {
  path: string;
  bytes: number;
  /** Staleness marks, one a line; empty unless opened with `projectDir`. */
  stale: string[];
}

export interface TermCount {
  term: string;
  count: number;
}

export interface SearchHit {
  path: string;
  matchedTerms: string[];
  totalHits: number;
  body: string;
  filenameOnly: boolean;
  date: string | null;
  isMemoryMd: boolean;
}

export interface SearchResults {
  terms: TermCount[];
  hits: SearchHit[];
}

/** The best hits of a search (`searchTop`), and how many files it found in all. */
export interface SearchPage extends SearchResults {
  /** How many files the whole search returns (at most 100). */
  total: number;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments, as text. */
  parametersSchema: string;
  /** The same, parsed. */
  parameters: Record<string, unknown>;
}

/**
 * Opens several memories in one instance of the component; each root is
 * preopened at `/memory-N` and each memory sees only its own.
 * @throws {MemoryError} `invalid-options`
 */
export declare function openGroup(members: GroupMember[]): Memory[];

/** An open memory: a handle on the WIT `memory` resource. */
export declare class Memory implements Disposable {
  /**
   * Opens `root` (created if missing) for `project` in an instance of its own.
   * @throws {MemoryError} `invalid-options`
   */
  static open(root: string, project: string, options?: MemoryOptions): Memory;
  private constructor();

  /** Releases the handle in the component; idempotent. */
  close(): void;
  [Symbol.dispose](): void;
  /** True when `other` was opened in the same instance as this memory. */
  sharesInstanceWith(other: Memory): boolean;

  readonly closed: boolean;
  readonly root: string;
  readonly guestRoot: string;
  readonly project: string;
  readonly projectSlug: string;
  readonly projectDir: string;
  readonly today: string;

  info(): MemoryInfo;
  limits(): Limits;
  write(target: WriteTarget | 'long_term', content: string, mode?: WriteMode, name?: string | null): WriteReceipt;
  writeIfUnchanged(target: WriteTarget | 'long_term', content: string, baseSha256: string, name?: string | null): WriteReceipt;
  read(source: ReadSource | 'long_term', name?: string | null): string | null;
  listFiles(): FileInfo[];
  appendDaily(heading: string, body: string): WriteReceipt;
  search(query: string, mode?: SearchMode): SearchResults;
  searchTop(query: string, limit: number, mode?: SearchMode): SearchPage;
  renderSearch(results: SearchResults, maxBytes?: number | null): string;
  edit(target: WriteTarget | 'long_term', oldText: string, newText: string, name?: string | null): EditReceipt;
  deleteNote(name: string): DeleteReceipt;
  renameNote(name: string, newName: string): RenameReceipt;
  history(source: ReadSource | 'long_term', name?: string | null, limit?: number | null): Version[];
  restore(version: string): WriteReceipt;
  lastChange(): Version | null;
  undo(expected?: string | null): WriteReceipt | null;
  readVersion(version: string): string | null;
  consolidationPlan(): string;
  pendingChanges(): PendingChange[];
  approve(id: string): string;
  reject(id: string): string;
  clear(what?: 'project' | 'long_term' | 'all'): string[];
  scanSecrets(): StoredSecret[];
  purgeSecrets(): PurgeReceipt;
  takeSnapshot(): SnapshotInfo;
  applySnapshot(): SnapshotInfo;
  contextBlock(): string | null;
  flushCompaction(summary: string, messageCount?: number | null): WriteReceipt;
  callTool(name: string, args: string | Record<string, unknown>): string;
  /** Semantic recall's status; loads the model when recall is on and it is not loaded yet. Embeds nothing. */
  semanticStatus(): SemanticStatus;
  /**
   * Embeds the chunks without a vector, at most `limit` (all when omitted),
   * in rounds of 16, calling `onProgress` after each; returns the status.
   */
  indexVectors(limit?: number, onProgress?: (status: SemanticStatus) => void): SemanticStatus;
  /** Turns semantic recall off for this memory, saying why, until it is opened again. */
  disableSemantic(why?: string): void;
  toolDefinitions(set?: ToolSet): ToolDefinition[];
  usagePrompt(set?: ToolSet): string;
  estimateTokens(text: string): bigint;
  effectiveReserve(base: number | bigint, block?: string | null): bigint;
  appendMemoryBlock(preamble: string, block?: string | null): string;
  compactionHeading(messageCount?: number | null): string;
}

/** Why the root chain failed. */
export type RootErrorKind =
  | 'not-absolute' | 'filesystem-root' | 'nul' | 'not-a-directory' | 'no-home' | 'config' | 'switch';
/** The root chain failed: `kind` says how; the message names the value and its source. */
export declare class RootError extends Error {
  readonly kind: RootErrorKind;
}
/** The outcome of `resolveRoot`. */
export interface RootChoice {
  /** The memory root: absolute, `~` expanded, not a filesystem root. */
  root: string;
  /** Which rule chose it. */
  rule: 'explicit' | 'env' | 'config' | 'default';
  /** The config file that was read, when one exists. */
  configFile: string | null;
  /** Why memory is off (`AGENT_MEMORY_DISABLE=1`, `"disabled": true in <file>`), or null. */
  disabled: string | null;
}
/** Inputs of the chain; by default this process's environment, home and platform dirs. */
export interface RootOptions {
  env?: Record<string, string | undefined>;
  home?: string | null;
  configDir?: string | null;
  dataDir?: string | null;
}
/** The root chain: explicit, `AGENT_MEMORY_DIR`, the config file, the platform data dir; and the off switch. */
export declare function resolveRoot(explicit?: string | null, options?: RootOptions): RootChoice;
/** The text every tool call gets while memory is off. */
export declare function disabledReply(reason: string): string;
export declare const ENV_DIR: 'AGENT_MEMORY_DIR';
export declare const ENV_DISABLE: 'AGENT_MEMORY_DISABLE';
export declare const ENV_CONFIG: 'AGENT_MEMORY_CONFIG';
