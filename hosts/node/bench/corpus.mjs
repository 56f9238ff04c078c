// node corpus.mjs PACKAGE ROOT: memory_search on a copy of the bench M corpus (project /bench/src/kestrel-api), the first call and the median of 20 after.
import { pathToFileURL } from 'node:url';
const { Memory } = await import(pathToFileURL(process.argv[2]).href);
const m = Memory.open(process.argv[3], '/bench/src/kestrel-api', { semantic: false });
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[(s.length - 1) >> 1]; };
const time = (f) => { const t = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t) / 1e6; };
let reply;
const first = time(() => { reply = m.callTool('memory_search', { query: 'Staging timeout migration' }); });
const s = []; for (let i = 0; i < 20; i++) s.push(time(() => m.callTool('memory_search', { query: 'Staging timeout migration' })));
console.log(JSON.stringify({ first: +first.toFixed(1), search: +med(s).toFixed(1), reply: reply.split('\n')[0] }));
m.close();
