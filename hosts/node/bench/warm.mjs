// node warm.mjs PACKAGE ROOT: warm write (median of 30) and warm search (median of 20) in one process.
import { pathToFileURL } from 'node:url';
const { Memory } = await import(pathToFileURL(process.argv[2]).href);
const m = Memory.open(process.argv[3], '/src/app', { now: '2026-05-30T09:15:00+02:00' });
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s[(s.length - 1) >> 1]; };
const time = (f) => { const t = process.hrtime.bigint(); f(); return Number(process.hrtime.bigint() - t) / 1e6; };
for (let i = 0; i < 3; i++) { m.write('long-term', `- warm-up fact ${i}`); m.search('fact'); }
const w = []; for (let i = 0; i < 30; i++) w.push(time(() => m.write('long-term', `- fact number ${i}`)));
const s = []; for (let i = 0; i < 20; i++) s.push(time(() => m.search('fact')));
console.log(JSON.stringify({ write: +med(w).toFixed(2), search: +med(s).toFixed(2) }));
m.close();
