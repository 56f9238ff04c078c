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

/** Where a write goes; the tool spelling `long_term` works too. */
export type WriteTarget = 'long-term' | 'scratchpad' | 'daily' | 'note';
/** Where a read comes from; the tool spelling `long_term` works too. */
export type ReadSource = 'long-term' | 'scratchpad' | 'daily' | 'note';
/** How a write combines with what is there. */
export type WriteMode = 'append' | 'overwrite';

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
  /** Cap of the instance's linear memory (default 256 MiB). */
  maxMemoryBytes?: number;
  /** Bound of one call (default 30 000 ms). */
  callTimeoutMs?: number;
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
}

export interface WriteReceipt {
  path: string;
  bytesWritten: number;
  truncatedFrom: number | null;
  message: string;
}

export interface FileInfo {
  path: string;
  bytes: number;
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
export declare function openGroup(members: GroupMember[], options?: { shimOpenAtWorkaround?: boolean }): Memory[];

/** An open memory: a handle on the WIT `memory` resource. */
export declare class Memory implements Disposable {
  /**
   * Opens `root` (created if missing) for `project` in an instance of its own.
   * @throws {MemoryError} `invalid-options`
   */
  static open(root: string, project: string, options?: MemoryOptions & { shimOpenAtWorkaround?: boolean }): Memory;
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
  read(source: ReadSource | 'long_term', name?: string | null): string | null;
  listFiles(): FileInfo[];
  appendDaily(heading: string, body: string): WriteReceipt;
  search(query: string): SearchResults;
  renderSearch(results: SearchResults, maxBytes?: number | null): string;
  contextBlock(): string | null;
  flushCompaction(summary: string, messageCount?: number | null): WriteReceipt;
  callTool(name: string, args: string | Record<string, unknown>): string;
  toolDefinitions(): ToolDefinition[];
  usagePrompt(): string;
  estimateTokens(text: string): bigint;
  effectiveReserve(base: number | bigint, block?: string | null): bigint;
  appendMemoryBlock(preamble: string, block?: string | null): string;
  compactionHeading(messageCount?: number | null): string;
}
