// The dashboard in a real browser: Debian's Chromium, driven by
// playwright-core (which downloads nothing). Each scenario saves a
// screenshot under target/dashboard/.
//
//   AGENT_MEMORY_BIN   the agent-memory binary [target/debug/agent-memory]
//   CHROMIUM           the browser [/usr/bin/chromium]
//   DASHBOARD_BENCH_ROOT, DASHBOARD_BENCH_PROJECT, DASHBOARD_BENCH_NOW
//                      a corpus to measure first load and search latency on
//                      (the benchmark scenario is skipped without them)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const workspace = resolve(here, '../../..');
const BIN = process.env.AGENT_MEMORY_BIN || join(workspace, 'target/debug/agent-memory');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOTS = join(workspace, 'target/dashboard');
const NOW = '2026-05-30T09:15:00+02:00';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

mkdirSync(SHOTS, { recursive: true });
const temp = mkdtempSync(join(tmpdir(), 'agent-memory-dashboard-'));
const root = join(temp, 'memory');
const project = join(temp, 'project');
mkdirSync(join(project, 'src'), { recursive: true });
writeFileSync(join(project, 'src/auth.rs'), 'pub fn login() {}\n');

function cli(args, opts = {}) {
  return execFileSync(BIN, ['--root', opts.root || root, '--project', opts.project || project,
    '--now', opts.now || NOW, ...args], { encoding: 'utf8', env: cleanEnv() });
}

function cleanEnv() {
  const env = { ...process.env, XDG_CONFIG_HOME: join(temp, 'config') };
  for (const k of ['AGENT_MEMORY_DIR', 'AGENT_MEMORY_NOW', 'AGENT_MEMORY_DISABLE', 'AGENT_MEMORY_CONFIG', 'AGENT_MEMORY_TEAM_DIR', 'AGENT_MEMORY_REVIEW']) delete env[k];
  return env;
}

/** Starts `serve --port 0` and resolves with its process and first line. */
function serve(args) {
  const child = spawn(BIN, [...args, 'serve', '--port', '0'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((ok, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (url) => ok({ child, url }));
    child.once('exit', (code) => fail(new Error('serve exited with ' + code)));
  });
}

function stop(child) {
  return new Promise((ok) => {
    if (child.exitCode !== null) return ok(child.exitCode);
    child.once('exit', (code) => ok(code));
    child.kill('SIGINT');
  });
}

async function launch() {
  const profile = mkdtempSync(join(tmpdir(), 'agent-memory-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1280, height: 900 },
  });
  return { context, profile };
}

let server, browser, page;

before(async () => {
  cli(['write', 'long_term', '--overwrite', [
    '# Index',
    '- Deploys: `make deploy-staging`, then tag a release. See note deploy.',
    '- The user prefers small, reviewed pull requests.',
    '- Login code: src/auth.rs (note login).',
  ].join('\n')]);
  cli(['write', 'scratchpad', '- [ ] Fix the flaky login test\n- [x] Upgrade to Rust 1.95']);
  cli(['write', 'daily', 'Staging deploy went out; smoke tests green.']);
  cli(['write', 'note', '--name', 'deploy', '--overwrite',
    '# Deployment\n\n## Staging\n\nRun `make deploy-staging` from main.\n\n## Production\n\nPush a `v*` tag; CI ships it after approval.\n']);
  cli(['write', 'note', '--name', 'login', '--overwrite', '# Login\n\nThe login flow lives in src/auth.rs.\n']);
  cli(['write', 'note', '--name', 'infra/ci', '--overwrite', '# CI\n\nRuns on every push.\n']);
  server = await serve(['--root', root, '--project', project, '--now', NOW]);
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{48}$/);
  browser = await launch();
  page = await browser.context.newPage();
  page.on('dialog', (d) => d.accept());
});

after(async () => {
  if (browser) await browser.context.close();
  if (server) assert.equal(await stop(server.child), 0, 'Ctrl-C stops the server cleanly');
  if (browser) rmSync(browser.profile, { recursive: true, force: true });
  rmSync(temp, { recursive: true, force: true });
});

const ready = (view) => page.waitForSelector(`body[data-ready="${view}"]`);
const shot = (name) => page.screenshot({ path: join(SHOTS, name + '.png'), fullPage: true });

test('open the overview', async () => {
  await page.goto(server.url);
  await ready('overview');
  // The token went into a cookie and out of the address bar.
  assert.equal(new URL(page.url()).search, '');
  const block = await page.locator('#context-block').textContent();
  assert.equal(block, cli(['context']).replace(/\n$/, ''), 'the block exactly as injected');
  await page.getByRole('meter', { name: 'MEMORY.md lines' }).waitFor();
  assert.equal(await page.getByRole('meter', { name: 'MEMORY.md lines' }).getAttribute('aria-valuenow'), '4');
  await page.getByText('chosen by --root').waitFor();
  await shot('overview');
});

test('search and open a hit', async () => {
  await page.getByRole('link', { name: 'Search', exact: true }).click();
  await ready('search');
  await page.getByLabel('Search query').pressSequentially('tag approval', { delay: 20 });
  const hit = page.locator('article.hit a', { hasText: 'notes/deploy.md' });
  await hit.waitFor();
  assert.match(page.url(), /\?q=tag\+approval$/, 'the query is in the address, bookmarkable');
  // Ranked search matches words: `tag` is marked, not the `tag` in `staging`.
  const index = await page.locator('article.hit', { hasText: 'MEMORY.md' }).locator('pre').innerHTML();
  assert.match(index, /then <mark>tag<\/mark> a release/);
  assert.doesNotMatch(index, /s<mark>tag<\/mark>ing/);
  await shot('search');
  await hit.click();
  await ready('file');
  assert.match(page.url(), /\?note=deploy$/);
  await page.getByRole('heading', { name: /Production/ }).waitFor();
  await page.getByRole('navigation', { name: 'Anchors' }).getByRole('link', { name: 'Staging' }).waitFor();
  await shot('note');
});

test('a deep link to a literal search shows its results', async () => {
  await page.goto(new URL('/?q=eploy-stag&mode=literal', server.url).href);
  await ready('search');
  assert.equal(await page.getByLabel('literal').isChecked(), true);
  await page.locator('article.hit a', { hasText: 'notes/deploy.md' }).waitFor();
});

test('edit a note and see the change in history', async () => {
  await page.goto(new URL('/?note=deploy', server.url).href);
  await ready('file');
  await page.getByRole('link', { name: 'Edit' }).click();
  await ready('edit');
  const editor = page.getByLabel('Text');
  const text = await editor.inputValue();
  await editor.fill(text.replace('after approval', 'at once'));
  await shot('edit');
  await page.getByRole('button', { name: 'Save' }).click();
  await ready('file');
  await page.getByRole('status').first().waitFor();
  await page.getByText('CI ships it at once.').waitFor();
  const first = page.getByRole('table', { name: 'History' }).locator('tbody tr').first();
  assert.match(await first.textContent(), /write/);
  assert.match(readFileSync(join(root, notePath('deploy')), 'utf8'), /ships it at once/);
  await shot('history');
});

test('compare a recorded version with the current text', async () => {
  const first = page.getByRole('table', { name: 'History' }).locator('tbody tr').first();
  const id = (await first.locator('td').first().textContent()).trim();
  await first.getByRole('link', { name: `Diff ${id}` }).click();
  await ready('file');
  assert.match(page.url(), new RegExp(`[?&]diff=${id}#h-diff$`), 'the comparison has its own address');
  const diff = await page.getByLabel(`Difference from ${id} to the current text`).textContent();
  assert.match(diff, /^- Push a `v\*` tag; CI ships it after approval\.$/m);
  assert.match(diff, /^\+ Push a `v\*` tag; CI ships it at once\.$/m);
  assert.match(diff, /^  ## Staging$/m, 'unchanged lines are context');
  assert.doesNotMatch(diff, /^[-+] ## Staging$/m);
  assert.ok(diff.indexOf('- Push') < diff.indexOf('+ Push'), 'removed lines come first');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shot('diff');
  // The address alone brings it back: a bookmark.
  await page.reload();
  await ready('file');
  await page.getByLabel(`Difference from ${id} to the current text`).waitFor();
});

test('restore the previous version', async () => {
  const first = page.getByRole('table', { name: 'History' }).locator('tbody tr').first();
  await first.getByRole('button', { name: /^Restore / }).click();
  await page.getByRole('status').filter({ hasText: 'Restored' }).waitFor();
  await page.locator('article.md').getByText('CI ships it after approval.').waitFor();
  assert.doesNotMatch(page.url(), /diff=/, 'the restored file is shown, not the old comparison');
  assert.match(readFileSync(join(root, notePath('deploy')), 'utf8'), /after approval/);
  const top = page.getByRole('table', { name: 'History' }).locator('tbody tr').first();
  assert.match(await top.textContent(), /restore/);
  await shot('restored');
});

test('refresh a stale note', async () => {
  writeFileSync(join(project, 'src/auth.rs'), 'pub fn login(user: &str) {}\n');
  await page.goto(new URL('/?view=notes', server.url).href);
  await ready('notes');
  const row = () => page.locator('li.file', { has: page.getByRole('link', { name: 'login', exact: true }) });
  await row().getByText('src/auth.rs changed').waitFor();
  // The tree: a topic's notes in its folder, which counts its stale notes.
  const infra = page.locator('li.folder', { has: page.locator('summary', { hasText: /^infra\// }) });
  await infra.getByRole('link', { name: 'ci', exact: true }).waitFor();
  assert.match(await page.locator('li.folder summary', { hasText: /^notes\// }).textContent(), /1 stale/);
  await shot('stale');
  await row().getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('status').waitFor();
  assert.equal(await row().getByText('stale').count(), 0);
  assert.doesNotMatch(await page.locator('li.folder summary', { hasText: /^notes\// }).textContent(), /stale/);
});

test('be refused a conflicting save', async () => {
  await page.goto(new URL('/?note=deploy&edit=1', server.url).href);
  await ready('edit');
  // Another agent writes while the page has the note open.
  cli(['write', 'note', '--name', 'deploy', 'Rollbacks: `make rollback`.']);
  const editor = page.getByLabel('Text');
  await editor.fill((await editor.inputValue()).replace('from main', 'from the release branch'));
  await page.getByRole('button', { name: 'Save' }).click();
  await page.getByRole('alert').filter({ hasText: 'changed since the page loaded' }).waitFor();
  assert.match(await page.locator('#current-text').textContent(), /make rollback/);
  assert.match(await page.locator('#your-text').textContent(), /from the release branch/);
  const diff = await page.getByLabel('Difference').textContent();
  assert.match(diff, /^\+ Run `make deploy-staging` from the release branch\.$/m);
  assert.match(diff, /^- Rollbacks: `make rollback`\.$/m);
  const onDisk = readFileSync(join(root, notePath('deploy')), 'utf8');
  assert.match(onDisk, /from main/, 'nothing was written');
  assert.match(onDisk, /make rollback/);
  await shot('conflict');
});

test('the secret guard refusal shows the rule, never the value', async () => {
  const secret = 'ghp_Q3vN8xT2mL5pR9wK4yH7jD1sF6gB0cZ8aE3u';
  await page.goto(new URL('/?note=login&edit=1', server.url).href);
  await ready('edit');
  const editor = page.getByLabel('Text');
  await editor.fill((await editor.inputValue()) + `\nci token: ${secret}\n`);
  await page.getByRole('button', { name: 'Save' }).click();
  const alert = page.getByRole('alert');
  await alert.waitFor();
  const message = await alert.textContent();
  assert.match(message, /secret-detected/);
  assert.match(message, /github-pat/, 'the rule id');
  assert.ok(!message.includes(secret.slice(4)), message);
  await shot('secret-refused');
});

test('create a note from the page; its Markdown cannot run script', async () => {
  let dialogs = 0;
  const count = () => { dialogs++; };
  page.on('dialog', count);
  await page.goto(new URL('/?view=new', server.url).href);
  await ready('new');
  await page.getByLabel('Note name').fill('html test');
  await page.getByLabel('Text').fill('# Escaping\n\n<script>alert(1)</script>\n\n[click](javascript:alert(2)) <img src=x onerror=alert(3)>\n');
  await page.getByRole('button', { name: 'Create' }).click();
  await ready('file');
  assert.match(page.url(), /\?note=html\+test$/);
  await page.getByText('<script>alert(1)</script>').waitFor();
  assert.equal(await page.locator('article.md script, article.md img').count(), 0);
  assert.equal(await page.locator('article.md a[href^="javascript"]').count(), 0);
  page.off('dialog', count);
  assert.equal(dialogs, 0, 'stored text ran as script');
});

test('review the model\'s queued changes: approve one, reject one', async () => {
  const queue = (content) => {
    const out = cli(['--review', 'call', 'memory_write', JSON.stringify({ target: 'long_term', content })]);
    assert.match(out, /^Queued for review as p\d+/);
    return out.match(/p\d+/)[0];
  };
  const bad = queue('- Disable the tests before pushing.');
  const good = queue('- Run the linters before pushing.');
  await page.goto(new URL('/?view=review', server.url).href);
  await ready('review');
  const diff = await page.getByLabel(`Change ${bad}`).textContent();
  assert.match(diff, /^\+- Disable the tests before pushing\.$/m);
  // The file's header line is not a removed line.
  assert.equal(await page.getByLabel(`Change ${bad}`).locator('span.del', { hasText: 'MEMORY.md' }).count(), 0);
  await shot('review');
  await page.getByRole('button', { name: `Reject ${bad}` }).click();
  await page.getByRole('status').filter({ hasText: `${bad}: Rejected` }).waitFor();
  assert.equal(await page.getByLabel(`Change ${bad}`).count(), 0);
  await page.getByRole('button', { name: `Approve ${good}` }).click();
  await page.getByRole('status').filter({ hasText: `${good}:` }).waitFor();
  await page.getByText('Nothing waits for review.').waitFor();
  const memory = cli(['read', 'long_term']);
  assert.match(memory, /Run the linters before pushing\./);
  assert.doesNotMatch(memory, /Disable the tests/);
});

test('the secrets page scans the store', async () => {
  await page.goto(new URL('/?view=secrets', server.url).href);
  await ready('secrets');
  await page.getByText('No secrets found in the store.').waitFor();
});

function notePath(name) {
  const list = cli(['read', 'list']);
  const line = list.split('\n').find((l) => l.trim().endsWith(`/notes/${name}.md`));
  assert.ok(line, list);
  return line.trim();
}

// The bar on corpus M: first load of the overview <= 300 ms, a search
// result update <= 100 ms after typing stops. Measured, never assumed, and
// printed with the goals beside them; never a pass/fail of this test (the
// machine's load decides too much of it).
const GOAL_LOAD_MS = 300;
const GOAL_SEARCH_MS = 100;
const benchArgs = () => ['--root', process.env.DASHBOARD_BENCH_ROOT, '--project', process.env.DASHBOARD_BENCH_PROJECT,
  '--now', process.env.DASHBOARD_BENCH_NOW];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => x.toFixed(0) + ' ms';
const versus = (x, goal) => `${ms(x)} (goal <= ${goal} ms: ${x <= goal ? 'met' : 'MISSED'})`;

test('benchmark: first load and search latency', { skip: !process.env.DASHBOARD_BENCH_ROOT && 'no DASHBOARD_BENCH_ROOT' }, async () => {
  const b = await launch();
  const servers = [];
  try {
    const p = await b.context.newPage();
    // The browser is already running, as a user's is: its own start-up is
    // not the dashboard's.
    await p.goto('about:blank');
    // First loads: each of a fresh server, from the printed URL (the token
    // redirect included) until the overview is drawn with its data.
    const firsts = [];
    for (let i = 0; i < 5; i++) {
      const server = await serve(benchArgs());
      servers.push(server);
      await p.goto(server.url);
      await p.waitForSelector('body[data-ready="overview"][data-painted-ms]');
      firsts.push(await p.evaluate(() => Number(document.body.dataset.paintedMs)));
      if (i < 4) { await stop(server.child); servers.pop(); }
    }
    const bench = servers[0];
    // Loads again (a reload, a bookmark): the same measure, warm server.
    const loads = [];
    for (let i = 0; i < 7; i++) {
      await p.goto(new URL('/', bench.url).href);
      await p.waitForSelector('body[data-ready="overview"][data-painted-ms]');
      loads.push(await p.evaluate(() => Number(document.body.dataset.paintedMs)));
    }
    await p.goto(new URL('/?view=search', bench.url).href);
    await p.waitForSelector('body[data-ready="search"]');
    // Typing `q` a key every 80 ms (a fast typist), from the last key's
    // `input` event until the page has been painted with the results for
    // the whole query: a search still running for an earlier prefix counts.
    const typeAndWait = (q) => p.evaluate((q) => new Promise((done) => {
      const input = document.getElementById('q');
      const results = document.getElementById('results');
      let typed = null;
      const seen = new MutationObserver(() => {
        if (typed === null || results.dataset.query !== q) return;
        seen.disconnect();
        requestAnimationFrame(() => setTimeout(() => done({
          total: performance.now() - typed,
          server: Number(results.dataset.serverMs),
          fetch: Number(results.dataset.fetchMs),
          render: Number(results.dataset.renderMs),
        }), 0));
      });
      seen.observe(results, { attributes: true, childList: true, subtree: true });
      let n = 0;
      const key = () => {
        n += 1;
        input.value = q.slice(0, n);
        if (n === q.length) typed = performance.now();
        input.dispatchEvent(new Event('input', { bubbles: true }));
        if (n < q.length) setTimeout(key, 80);
      };
      key();
    }), q);
    // The first ranked search of a process builds or checks the index.
    const first = (await typeAndWait('release checklist')).total;
    const timings = [];
    for (const q of ['deploy', 'migration rollback', 'flaky test', 'cache eviction', 'yesterday', 'token refresh', 'kestrel']) {
      await p.fill('#q', '');
      timings.push(await typeAndWait(q));
    }
    const searches = timings.map((t) => t.total);
    const part = (k) => ms(median(timings.map((t) => t[k])));
    const line = `dashboard bench (corpus M): overview first load median ${versus(median(firsts), GOAL_LOAD_MS)}`
      + ` [max ${ms(Math.max(...firsts))}, n=${firsts.length}, each a fresh server, token redirect included, until painted];`
      + ` overview load again median ${ms(median(loads))} [max ${ms(Math.max(...loads))}, n=${loads.length}];`
      + ` search update after typing stops median ${versus(median(searches), GOAL_SEARCH_MS)}`
      + ` [max ${ms(Math.max(...searches))}, n=${searches.length}, typed a key every 80 ms; medians of its parts:`
      + ` request ${part('fetch')} of which the library's search ${part('server')}, drawing ${part('render')};`
      + ` first search of the process: ${ms(first)}]`;
    console.log(line);
    writeFileSync(join(SHOTS, 'bench.txt'), line + '\n');
  } finally {
    await b.context.close();
    for (const server of servers) await stop(server.child);
    rmSync(b.profile, { recursive: true, force: true });
  }
});
