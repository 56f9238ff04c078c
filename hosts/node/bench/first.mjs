// node first.mjs PACKAGE ROOT: open a memory in ROOT and write once (PACKAGE: the path of agent-memory.js).
import { pathToFileURL } from 'node:url';
const { Memory } = await import(pathToFileURL(process.argv[2]).href);
const m = Memory.open(process.argv[3], '/src/app', { now: '2026-05-30T09:15:00+02:00' });
m.write('long-term', '- the first fact');
