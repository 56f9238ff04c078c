import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const url = process.argv[2];
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ctx = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'probe-')), { executablePath: '/usr/bin/chromium', headless: true, args: FLAGS });
const p = await ctx.newPage();
for (let i = 0; i < 3; i++) {
  const t0 = Date.now();
  await p.goto(i === 0 ? url : new URL('/', url).href);
  await p.waitForSelector('body[data-ready="overview"]');
  const r = await p.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0].toJSON();
    const res = performance.getEntriesByType('resource').map((e) => [e.name.replace(/^.*\//, ''), Math.round(e.startTime), Math.round(e.responseEnd)]);
    return { ready: Number(document.body.dataset.readyMs), redirect: [nav.redirectStart, nav.redirectEnd], fetchStart: nav.fetchStart, reqStart: nav.requestStart, respEnd: nav.responseEnd, dcl: nav.domContentLoadedEventEnd, res };
  });
  console.log(i, Date.now() - t0, JSON.stringify(r));
}
await ctx.close();
