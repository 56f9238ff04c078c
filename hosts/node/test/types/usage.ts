// Compiled by `tsc` (never run) against the installed package's
// agent-memory.d.ts: the declarations must accept the README's use and
// reject misuse (each @ts-expect-error must be an error).

import {
  Memory, MemoryError, MemoryTrap, openGroup, type EditReceipt, type Limits, type PurgeReceipt,
  type SearchPage, type SearchResults, type SemanticStatus, type StoredSecret, type ToolDefinition, type Version,
  type WriteReceipt,
} from 'agent-memory';

const memory: Memory = Memory.open('/tmp/agent-memory', '/home/me/src/my-app', {
  now: '2026-05-30T09:15:00+02:00',
  secretPolicy: 'redact',
  source: 'agent-7',
  historyMaxVersions: 10,
  historyMaxBytes: 1n << 30n,
  projectDir: '/home/me/src/my-app',
});
const marks: string[] = memory.listFiles()[0].stale;
const receipt: WriteReceipt = memory.write('long-term', '- prefers tabs');
const alsoToolWord: WriteReceipt = memory.write('long_term', '- x', 'overwrite');
const block: string | null = memory.contextBlock();
const reply: string = memory.callTool('memory_search', { query: 'tabs' });
const results: SearchResults = memory.search('tabs');
const literal: SearchResults = memory.search('tab', 'literal');
const warnings: string[] = receipt.warnings;
const edited: EditReceipt = memory.edit('note', 'tabs', 'spaces', 'style');
const moved: string = memory.renameNote('style', 'team/style').to;
const existed: boolean = memory.deleteNote('team/style').existed;
const versions: Version[] = memory.history('note', 'team/style', 5);
const last: Version | null = memory.lastChange();
if (last !== null && last.operation === 'delete') memory.restore(last.id);
const before: string | null = memory.readVersion(versions[0].id);
const page: SearchPage = memory.searchTop('tabs', 10);
const pageTotal: number = page.total;
const pageRendered: string = memory.renderSearch(page, 4096);
const secrets: StoredSecret[] = memory.scanSecrets();
const savedIn: string | null = secrets[0].version;
const purged: PurgeReceipt = memory.purgeSecrets();
const anthropic: ToolDefinition[] = memory.toolDefinitions('anthropic');
const prompt: string = memory.usagePrompt('seed');
const rendered: string = memory.renderSearch(results, 4096);
const limits: Limits = memory.limits();
const tokens: bigint = memory.estimateTokens('abcd');
const [a, b]: Memory[] = openGroup([
  { root: '/tmp/a', project: '/src/a', maxWriteBytes: 1024 },
  { root: '/tmp/b', project: '/src/b', callTimeoutMs: 5000, maxMemoryBytes: 64 << 20 },
]);
const shares: boolean = a.sharesInstanceWith(b);
try {
  memory.read('note', 'auth');
} catch (error) {
  if (error instanceof MemoryError) {
    const kind: string = error.kind;
    void kind;
  } else if (error instanceof MemoryTrap) {
    const limit: 'time' | 'memory' | null = error.limit;
    void limit;
  }
}
memory[Symbol.dispose]();
memory.close();

// @ts-expect-error: not a write target
memory.write('longterm', 'x');
// @ts-expect-error: not a write mode
memory.write('note', 'x', 'prepend', 'n');
// @ts-expect-error: not a search mode
memory.search('x', 'fuzzy');
// @ts-expect-error: not a tool set
memory.toolDefinitions('all');
// @ts-expect-error: not a secret policy
Memory.open('/tmp/a', '/src/a', { secretPolicy: 'warn' });
// @ts-expect-error: the rename receipt says from, not path
void memory.renameNote('a', 'b').path;
// @ts-expect-error: the constructor is private; use Memory.open
new Memory();
// @ts-expect-error: a group member needs a root
openGroup([{ project: '/src/a' }]);

const semantic = Memory.open('/tmp/a', '/src/a', { semantic: false, weights: '/models/w.safetensors' });
const lines: string[] = [];
const status: SemanticStatus = semantic.indexVectors(32, (s) => lines.push(`${s.line} ${s.percent}`));
const why: string | null = semantic.semanticStatus().whyOff;
semantic.disableSemantic('not here');
// @ts-expect-error: the limit is a number of chunks
semantic.indexVectors('all');

void [lines, status, why, receipt, alsoToolWord, block, reply, rendered, limits.maxQueryTerms, limits.historyMaxBytes, tokens, shares];
void [literal, warnings, edited.line, moved, existed, versions, secrets, anthropic, prompt];
