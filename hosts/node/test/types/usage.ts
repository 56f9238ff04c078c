// Compiled by `tsc` (never run) against the installed package's
// agent-memory.d.ts: the declarations must accept the README's use and
// reject misuse (each @ts-expect-error must be an error).

import { Memory, MemoryError, MemoryTrap, openGroup, type Limits, type SearchResults, type WriteReceipt } from 'agent-memory';

const memory: Memory = Memory.open('/tmp/agent-memory', '/home/me/src/my-app', { now: '2026-05-30T09:15:00+02:00' });
const receipt: WriteReceipt = memory.write('long-term', '- prefers tabs');
const alsoToolWord: WriteReceipt = memory.write('long_term', '- x', 'overwrite');
const block: string | null = memory.contextBlock();
const reply: string = memory.callTool('memory_search', { query: 'tabs' });
const results: SearchResults = memory.search('tabs');
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
// @ts-expect-error: the constructor is private; use Memory.open
new Memory();
// @ts-expect-error: a group member needs a root
openGroup([{ project: '/src/a' }]);

void [receipt, alsoToolWord, block, reply, rendered, limits.maxQueryTerms, tokens, shares];
