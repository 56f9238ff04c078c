// The agent-memory dashboard: plain JavaScript, no build step, no network
// but this server. Every view is a URL (bookmarkable); every change is a
// POST that the server turns into one host-library call.
'use strict';

const app = document.getElementById('app');

// ---------- helpers ----------

function esc(text) {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ({
    '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
  })[c]);
}

function params() { return new URLSearchParams(location.search); }

function link(query) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== null && v !== undefined && v !== '') q.set(k, v);
  }
  const s = q.toString();
  return s ? '/?' + s : '/';
}

function fileLink(f, extra) {
  if (!f.kind) return null;
  const q = { scope: f.scope === 'team' ? 'team' : null, ...extra };
  if (f.kind === 'note') return link({ note: f.name, ...q });
  return link({ file: f.kind, name: f.kind === 'daily' ? f.name : null, ...q });
}

class ApiError extends Error {
  constructor(status, body) {
    super(body.message || ('HTTP ' + status));
    this.status = status;
    this.body = body;
  }
}

async function api(path, body, signal) {
  const init = { signal, credentials: 'same-origin' };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers = { 'content-type': 'application/json', 'x-agent-memory': '1' };
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ message: 'not JSON (HTTP ' + response.status + ')' }));
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

function errorBox(error) {
  const kind = error.body && error.body.error ? esc(error.body.error) + ': ' : '';
  return `<div class="notice error" role="alert">${kind}${esc(error.message)}</div>`;
}

function okBox(message) {
  return `<div class="notice ok" role="status"><pre>${esc(message)}</pre></div>`;
}

function go(url) {
  history.pushState(null, '', url);
  return route();
}

// A message for the next page drawn (after a change).
let flash = '';
function after(message, url) {
  flash = okBox(message);
  if (url) history.pushState(null, '', url);
  return route();
}

// Internal links navigate without a reload.
document.addEventListener('click', (event) => {
  const a = event.target.closest('a');
  if (!a || a.target || event.ctrlKey || event.metaKey || event.shiftKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || url.pathname !== '/') return;
  if (url.search === location.search && url.hash) return; // an anchor on this page
  event.preventDefault();
  go(url.pathname + url.search + url.hash);
});
window.addEventListener('popstate', route);
document.getElementById('quick-search').addEventListener('submit', (event) => {
  event.preventDefault();
  const q = event.target.q.value.trim();
  go(link({ q, view: q ? null : 'search' }));
});

function setActive(view) {
  for (const a of document.querySelectorAll('nav a')) {
    a.classList.toggle('active', a.dataset.view === view);
  }
}

// ---------- Markdown (escaped first; links only http(s) and anchors) ----------

function slug(text, used) {
  let s = text.toLowerCase().replace(/<[^>]*>/g, '').replace(/[^\p{L}\p{N}]+/gu, '-').replace(/^-|-$/g, '') || 'section';
  let out = s, i = 2;
  while (used.has(out)) out = s + '-' + i++;
  used.add(out);
  return out;
}

function inline(text) {
  let s = esc(text);
  const codes = [];
  s = s.replace(/`([^`]+)`/g, (_, c) => { codes.push(c); return '\u0000' + (codes.length - 1) + '\u0000'; });
  s = s.replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (m, label, url) =>
    /^(https?:\/\/|#)/.test(url) ? `<a href="${url}" rel="noreferrer">${label}</a>` : m);
  s = s.replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>');
  s = s.replace(/\u0000(\d+)\u0000/g, (_, i) => `<code>${codes[Number(i)]}</code>`);
  return s;
}

function markdown(text) {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const out = [], toc = [], used = new Set();
  let i = 0, para = [];
  const flush = () => { if (para.length) { out.push('<p>' + para.map(inline).join('<br>') + '</p>'); para = []; } };
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*(```|~~~)/);
    if (fence) {
      flush();
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      out.push('<pre><code>' + esc(body.join('\n')) + '</code></pre>');
      continue;
    }
    const h = line.match(/^(#{1,6})\s+(.*)$/);
    if (h) {
      flush();
      const level = h[1].length, id = slug(h[2], used);
      toc.push({ level, id, text: h[2] });
      out.push(`<h${level} id="${id}">${inline(h[2])} <a class="anchor muted" href="#${id}" aria-label="Link to this section">#</a></h${level}>`);
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { flush(); out.push('<hr>'); i++; continue; }
    const item = line.match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
    if (item) {
      flush();
      const ordered = /\d/.test(item[1]);
      const items = [];
      while (i < lines.length) {
        const m = lines[i].match(/^\s*([-*+]|\d+[.)])\s+(.*)$/);
        if (!m) break;
        let body = m[2];
        const box = body.match(/^\[([ xX])\]\s+(.*)$/);
        body = box ? `<input type="checkbox" disabled${box[1] === ' ' ? '' : ' checked'}> ` + inline(box[2]) : inline(body);
        items.push('<li>' + body + '</li>');
        i++;
      }
      out.push((ordered ? '<ol>' : '<ul>') + items.join('') + (ordered ? '</ol>' : '</ul>'));
      continue;
    }
    if (/^\s*>/.test(line)) {
      flush();
      const quote = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) quote.push(lines[i++].replace(/^\s*>\s?/, ''));
      out.push('<blockquote>' + quote.map(inline).join('<br>') + '</blockquote>');
      continue;
    }
    if (line.trim() === '') { flush(); i++; continue; }
    para.push(line);
    i++;
  }
  flush();
  return { html: out.join('\n'), toc };
}

// Marks the terms in `text`: anywhere for a literal search, only at the
// start of a word for a ranked one (which matches words, not substrings).
function highlight(text, terms, wordStart) {
  let s = esc(text);
  const words = (terms || []).filter((t) => t.length > 0).map((t) => esc(t).replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  if (!words.length) return s;
  const start = wordStart ? '(^|[^\\p{L}\\p{N}_])' : '()';
  return s.replace(new RegExp(start + '(' + words.join('|') + ')', 'giu'), '$1<mark>$2</mark>');
}

// ---------- a line diff (longest common subsequence) ----------

function lineDiff(before, after) {
  const a = before.split('\n'), b = after.split('\n');
  // The unchanged head and tail are kept out of the table: an edit of a
  // long note compares only the lines around it.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out = a.slice(0, head).map((text) => ({ op: ' ', text }));
  const x = a.slice(head, a.length - tail), y = b.slice(head, b.length - tail);
  const n = x.length, m = y.length;
  if (n * m > 4e6) return null; // too big to show here
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) { out.push({ op: ' ', text: x[i] }); i++; j++; }
    // Removed lines before added ones, as diff(1) prints them.
    else if (i < n && (j === m || lcs[i + 1][j] >= lcs[i][j + 1])) out.push({ op: '-', text: x[i++] });
    else out.push({ op: '+', text: y[j++] });
  }
  for (const text of a.slice(a.length - tail)) out.push({ op: ' ', text });
  return out;
}

function diffHtml(before, after, label) {
  const d = lineDiff(before, after);
  if (!d) return '<p class="muted">Too large to compare here.</p>';
  const cls = { '+': 'add', '-': 'del', ' ': '' };
  // Long runs of unchanged lines fold to their first and last three.
  const shown = [];
  for (let k = 0; k < d.length;) {
    if (d[k].op !== ' ') { shown.push(d[k++]); continue; }
    let end = k;
    while (end < d.length && d[end].op === ' ') end++;
    const run = d.slice(k, end);
    if (run.length > 8) shown.push(...run.slice(0, 3), { op: '…', text: `${run.length - 6} unchanged lines` }, ...run.slice(-3));
    else shown.push(...run);
    k = end;
  }
  const changed = d.filter((l) => l.op !== ' ').length;
  return `<p class="muted diff-summary">${changed ? `${d.filter((l) => l.op === '-').length} line(s) removed, ${d.filter((l) => l.op === '+').length} added` : 'No difference.'}</p>`
    + `<pre class="diff" aria-label="${esc(label)}">${shown.map((l) => l.op === '…'
      ? `<span class="fold">  … ${esc(l.text)}</span>`
      : `<span class="${cls[l.op]}">${l.op} ${esc(l.text)}</span>`).join('\n')}</pre>`;
}

// ---------- views ----------

function meterHtml(label, value, max, unit) {
  const ratio = max ? value / max : 0;
  const cls = ratio > 1 ? 'over' : ratio > 0.8 ? 'high' : '';
  return `<div class="meter ${cls}" role="meter" aria-label="${esc(label)} ${esc(unit)}" aria-valuenow="${value}" aria-valuemax="${max}">
    <div class="label"><span>${esc(label)} ${esc(unit)}</span><span>${value.toLocaleString('en')} / ${max.toLocaleString('en')}</span></div>
    <div class="bar"><div class="fill" data-width="${Math.min(100, ratio * 100).toFixed(1)}"></div></div></div>`;
}

function changeLine(c) {
  return `${esc(c.operation)} of <code>${esc(c.path)}</code> at ${esc(c.time)}${c.source ? ' by ' + esc(c.source) : ''}`;
}

async function overview() {
  const o = await api('/api/overview');
  const message = flash;
  flash = '';
  const s = o.status;
  const block = o.block === null
    ? '<p class="muted">No context block: memory is empty, so nothing is injected.</p>'
    : `<pre class="block" id="context-block" aria-label="Context block">${esc(o.block)}</pre>`;
  const cut = o.cut.length || o.markers.length
    ? o.cut.map((c) => `<h3>${esc(c.what)}: ${c.count} line(s) not in the block</h3><pre>${
        c.lines.map((l) => `<span class="cutline">${String(l.line).padStart(4)}  ${esc(l.text)}</span>`).join('\n')}${
        c.count > c.lines.length ? '\n…' : ''}</pre>`).join('')
      + (o.markers.length ? '<h3>Cut markers in the block</h3><pre>' + o.markers.map(esc).join('\n') + '</pre>' : '')
    : '<p class="muted">Nothing is cut: every line of MEMORY.md and today\'s log reaches the agent.</p>';
  const notices = o.notices.length
    ? '<ul>' + o.notices.map((n) => '<li>' + esc(n.replace(/^[-*]\s*/, '')) + '</li>').join('') + '</ul>'
    : '<p class="muted">No notices.</p>';
  const undo = (label, change, scope) => change
    ? `<p>Last ${label}change: ${changeLine(change)}</p><div class="actions"><button data-undo="${scope}" data-expected="${esc(change.id)}">Undo last ${label}change</button></div>`
    : `<p class="muted">No ${label}change recorded.</p>`;
  app.innerHTML = `<h1>Overview</h1>
  <div class="grid">
    <section class="panel" aria-labelledby="h-status"><h2 id="h-status">Status</h2>
      <dl class="status">
        <dt>memory</dt><dd>${esc(s.memory)}</dd>
        <dt>root</dt><dd>${esc(s.root)}<br><span class="muted">chosen by ${esc(s.rule)}</span></dd>
        <dt>project</dt><dd>${esc(s.project)}<br><span class="muted">${esc(s.project_dir)}</span></dd>
        <dt>team</dt><dd>${s.team_dir ? esc(s.team_dir) : '<span class="muted">none</span>'}</dd>
        <dt>anchors</dt><dd>${s.anchors ? esc(s.anchors) : '<span class="muted">off (no project directory)</span>'}</dd>
        <dt>secrets</dt><dd>${esc(s.secrets)}</dd>
        <dt>today</dt><dd>${esc(s.today)}</dd>
      </dl></section>
    <section class="panel" aria-labelledby="h-budget"><h2 id="h-budget">Budget</h2>
      ${meterHtml('MEMORY.md', o.meter.lines, o.meter.max_lines, 'lines')}
      ${meterHtml('MEMORY.md', o.meter.bytes, o.meter.max_bytes, 'bytes')}
      ${o.team_meter ? meterHtml('team MEMORY.md', o.team_meter.lines, o.team_meter.max_lines, 'lines') + meterHtml('team MEMORY.md', o.team_meter.bytes, o.team_meter.max_bytes, 'bytes') : ''}
      ${meterHtml('context block', o.block_bytes, o.block_max, 'bytes')}
    </section>
    <section class="panel" aria-labelledby="h-notices"><h2 id="h-notices">Notices</h2>${notices}</section>
    <section class="panel" aria-labelledby="h-undo"><h2 id="h-undo">Undo</h2>
      <div id="undo-result">${message}</div>
      ${undo('', o.last_change, 'personal')}
      ${s.team_dir ? undo('team ', o.team_last_change, 'team') : ''}
    </section>
  </div>
  <section class="below" aria-labelledby="h-cut"><h2 id="h-cut">What the cap cuts</h2>${cut}</section>
  <section class="below" aria-labelledby="h-block"><h2 id="h-block">Context block, exactly as injected</h2>${block}</section>`;
  for (const el of app.querySelectorAll('[data-width]')) el.style.width = el.dataset.width + '%';
  for (const b of app.querySelectorAll('button[data-undo]')) {
    b.addEventListener('click', async () => {
      try {
        const r = await api('/api/undo', { scope: b.dataset.undo, expected: b.dataset.expected });
        await after(r.message);
      } catch (e) { document.getElementById('undo-result').innerHTML = errorBox(e); }
    });
  }
}

// One file of the tree: its link, size, staleness marks and Refresh.
function fileItem(f, label) {
  const href = fileLink(f);
  const name = href ? `<a href="${esc(href)}">${esc(label)}</a>` : esc(f.path);
  const stale = f.stale.length
    ? ` <span class="badge">stale</span> <span class="stale">${f.stale.map(esc).join('<br>')}</span>
       <button data-refresh='${esc(JSON.stringify({ scope: f.scope, kind: f.kind, name: f.name }))}'>Refresh</button>`
    : '';
  return `<li class="file" data-path="${esc(f.path)}">${name} <span class="muted size">${f.bytes.toLocaleString('en')} bytes</span>${stale}</li>`;
}

// A folder of the tree, open unless it is long; its stale files count in
// its summary, so a closed folder still says it holds some.
function folderItem(label, items, staleCount, open) {
  const marks = staleCount ? ` <span class="badge">${staleCount} stale</span>` : '';
  return `<li class="folder"><details${open ? ' open' : ''}><summary>${esc(label)}/ <span class="muted">${items.length}</span>${marks}</summary><ul>${items.join('')}</ul></details></li>`;
}

// The files of one scope as a tree: MEMORY.md and the scratchpad, then the
// daily logs, then the notes by topic folder (`infra/ci` in `infra/`).
function fileTree(files) {
  if (!files.length) return '<p class="muted">No files.</p>';
  const top = [], daily = [], notes = { dirs: new Map(), files: [], stale: 0 };
  let dailyStale = 0;
  for (const f of files) {
    if (f.kind === 'note' && f.name) {
      const parts = f.name.split('/');
      let dir = notes;
      for (const part of parts.slice(0, -1)) {
        if (!dir.dirs.has(part)) dir.dirs.set(part, { dirs: new Map(), files: [], stale: 0 });
        dir.stale += f.stale.length ? 1 : 0;
        dir = dir.dirs.get(part);
      }
      dir.stale += f.stale.length ? 1 : 0;
      dir.files.push(fileItem(f, parts[parts.length - 1]));
    } else if (f.kind === 'daily') {
      daily.push(fileItem(f, f.name || f.path));
      dailyStale += f.stale.length ? 1 : 0;
    } else {
      top.push(fileItem(f, f.path.replace(/^team:/, '').replace(/^projects\/[^/]+\//, '')));
    }
  }
  const render = (dir) => [...[...dir.dirs].sort(([a], [b]) => a.localeCompare(b))
    .map(([name, sub]) => { const inner = render(sub); return folderItem(name, inner, sub.stale, inner.length <= 50); }), ...dir.files];
  const items = [...top];
  if (daily.length) items.push(folderItem('daily', daily.reverse(), dailyStale, daily.length <= 31));
  const noteItems = render(notes);
  if (noteItems.length) items.push(folderItem('notes', noteItems, notes.stale, true));
  return `<ul class="tree">${items.join('')}</ul>`;
}

function wireRefresh(root) {
  for (const b of root.querySelectorAll('button[data-refresh]')) {
    b.addEventListener('click', async () => {
      const out = document.getElementById('result');
      try {
        const r = await api('/api/refresh', JSON.parse(b.dataset.refresh));
        await after(r.message);
      } catch (e) { out.innerHTML = errorBox(e); }
    });
  }
}

async function notes() {
  const f = await api('/api/files');
  const message = flash;
  flash = '';
  app.innerHTML = `<h1>Notes</h1><div id="result">${message}</div>
    <section aria-labelledby="h-personal"><h2 id="h-personal">Personal</h2>${fileTree(f.personal)}</section>
    <section aria-labelledby="h-team"><h2 id="h-team">Team</h2>${f.team ? fileTree(f.team) : '<p class="muted">No team memory: create the project\'s <code>.agent-memory</code> folder (or run <code>agent-memory snapshot</code>).</p>'}</section>`;
  wireRefresh(app);
}

function fileTitle(d) {
  const scope = d.scope === 'team' ? ' <span class="badge team">team</span>' : '';
  if (d.kind === 'note') return esc(d.name) + scope;
  const names = { long_term: 'MEMORY.md', scratchpad: 'Scratchpad', daily: 'Daily log ' + (d.name || d.today) };
  return esc(names[d.kind] || d.kind) + scope;
}

function fileQuery(p) {
  const note = p.get('note');
  return {
    scope: p.get('scope') || 'personal',
    kind: note !== null ? 'note' : (p.get('file') || 'long_term'),
    name: note !== null ? note : p.get('name'),
  };
}

async function loadFile(ref) {
  const q = new URLSearchParams({ scope: ref.scope, kind: ref.kind });
  if (ref.name) q.set('name', ref.name);
  return api('/api/file?' + q);
}

// The section comparing a recorded version with the file now
// (`&diff=vN`, so a comparison can be bookmarked).
async function versionDiff(ref, id, d) {
  const close = link(Object.fromEntries([...params()].filter(([k]) => k !== 'diff')));
  const v = d.history.find((h) => h.id === id);
  const when = v ? ` (before the ${esc(v.operation)} at ${esc(v.time)}${v.source ? ' by ' + esc(v.source) : ''})` : '';
  let body;
  try {
    const r = await api('/api/version?' + new URLSearchParams({ scope: ref.scope, version: id }));
    if (r.text === null && d.text === null) body = '<p class="muted">The file did not exist then, and does not now.</p>';
    else {
      const note = r.text === null ? '<p class="muted">The file did not exist then: every line now is new.</p>'
        : d.text === null ? '<p class="muted">The file does not exist now: every line then is gone.</p>' : '';
      body = note + diffHtml(r.text ?? '', d.text ?? '', `Difference from ${id} to the current text`);
    }
  } catch (e) { body = errorBox(e); }
  return `<section class="panel" aria-labelledby="h-diff"><h2 id="h-diff">From ${esc(id)} to the current text</h2>
    <p class="muted">${esc(id)}${when}: <span class="del">- its lines</span>, <span class="add">+ the current text's</span>. <a href="${esc(close)}">Close</a></p>
    ${body}
    <div class="actions"><button data-restore="${esc(id)}">Restore ${esc(id)}</button></div></section>`;
}

async function filePage() {
  const message = flash;
  flash = '';
  const p = params();
  const ref = fileQuery(p);
  const d = await loadFile(ref);
  const md = d.text === null ? null : markdown(d.text);
  const toc = md && md.toc.length
    ? '<nav class="toc" aria-label="Anchors"><strong>Anchors</strong><ul>' + md.toc.map((t) => `<li class="toc-l${t.level}"><a href="#${t.id}">${inline(t.text)}</a></li>`).join('') + '</ul></nav>'
    : '';
  const stale = d.stale.length
    ? `<div class="notice error" role="note"><span class="badge">stale</span> ${d.stale.map(esc).join('<br>')}
       <div class="actions"><button data-refresh='${esc(JSON.stringify(ref))}'>Refresh anchors</button></div></div>`
    : '';
  const noteActions = d.kind === 'note' && d.text !== null
    ? `<button id="rename">Rename</button><button id="delete" class="danger">Delete</button>` : '';
  const versions = d.history.length
    ? `<table aria-label="History"><thead><tr><th>version</th><th>time</th><th>operation</th><th class="num">bytes before</th><th>source</th><th></th></tr></thead><tbody>${
      d.history.map((v) => `<tr><td>${esc(v.id)}</td><td>${esc(v.time)}</td><td>${esc(v.operation)}${v.other_path ? ' <span class="muted">(' + esc(v.other_path) + ')</span>' : ''}</td><td class="num">${v.bytes === null ? '<span class="muted">none</span>' : v.bytes}</td><td>${esc(v.source)}</td>
        <td><a class="button" href="${esc(link({ ...Object.fromEntries(params()), diff: v.id }))}#h-diff">Diff ${esc(v.id)}</a>
        <button data-restore="${esc(v.id)}">Restore ${esc(v.id)}</button></td></tr>`).join('')}</tbody></table>
      <p class="muted">Each row is the text as it was just before that change; restoring is itself recorded, so it can be undone.</p>`
    : '<p class="muted">No recorded versions.</p>';
  const diff = p.get('diff') ? await versionDiff(ref, p.get('diff'), d) : '';
  app.innerHTML = `<h1>${fileTitle(d)}</h1>
    <p class="muted">${d.path ? '<code>' + esc(d.path) + '</code>' : ''}</p>
    <div id="result">${message || ''}</div>
    ${stale}
    <div class="actions"><a class="button" href="${esc(link({ ...Object.fromEntries(params()), edit: '1' }))}">Edit</a>${noteActions}</div>
    ${toc}
    <article class="md panel">${d.text === null ? '<p class="muted">This file does not exist (yet).</p>' : md.html}</article>
    ${diff}
    <section aria-labelledby="h-history"><h2 id="h-history">History</h2>${versions}</section>`;
  wireRefresh(app);
  for (const b of app.querySelectorAll('button[data-restore]')) {
    b.addEventListener('click', async () => {
      try {
        const r = await api('/api/restore', { scope: ref.scope, version: b.dataset.restore });
        await after(r.message, link(Object.fromEntries([...params()].filter(([k]) => k !== 'diff'))));
      } catch (e) { document.getElementById('result').innerHTML = errorBox(e); }
    });
  }
  const del = document.getElementById('delete');
  if (del) {
    del.addEventListener('click', async () => {
      if (!confirm(`Delete note "${d.name}"? It stays in history and can be restored.`)) return;
      try {
        const r = await api('/api/delete', { scope: ref.scope, name: d.name });
        await after(r.message);
      } catch (e) { document.getElementById('result').innerHTML = errorBox(e); }
    });
    document.getElementById('rename').addEventListener('click', async () => {
      const newName = prompt('New name for the note', d.name);
      if (!newName || newName === d.name) return;
      try {
        const r = await api('/api/rename', { scope: ref.scope, name: d.name, new_name: newName });
        await after(r.message, link({ note: newName, scope: ref.scope === 'team' ? 'team' : null }));
      } catch (e) { document.getElementById('result').innerHTML = errorBox(e); }
    });
  }
}

async function editPage() {
  const p = params();
  const ref = fileQuery(p);
  const d = await loadFile(ref);
  let base = d.text ?? '';
  const back = link(Object.fromEntries([...p].filter(([k]) => k !== 'edit')));
  app.innerHTML = `<h1>Edit ${fileTitle(d)}</h1>
    <div id="result"></div>
    <label for="editor" class="muted">The file's own text; saved only if nobody changed it since this page loaded it.</label>
    <textarea id="editor" aria-label="Text" spellcheck="false">${esc(base)}</textarea>
    <div class="actions"><button id="save" class="primary">Save</button><a href="${esc(back)}">Cancel</a></div>
    <div id="compare"></div>`;
  const editor = document.getElementById('editor');
  document.getElementById('save').addEventListener('click', async () => {
    const result = document.getElementById('result');
    try {
      const r = await api('/api/save', { ...ref, name: ref.name || null, base, text: editor.value });
      await after(r.message, back);
    } catch (e) {
      result.innerHTML = errorBox(e);
      if (e.body && e.body.error === 'changed') {
        document.getElementById('compare').innerHTML = `<h2>Both texts</h2><div class="compare">
          <section><h3>Now on disk</h3><pre id="current-text">${esc(e.body.current)}</pre></section>
          <section><h3>Yours (not saved)</h3><pre id="your-text">${esc(e.body.yours)}</pre></section></div>
          <h3>From the text on disk to yours</h3>${diffHtml(e.body.current, e.body.yours, 'Difference')}
          <div class="actions"><button id="rebase">Keep my text, and save over the text now on disk next time</button></div>`;
        document.getElementById('rebase').addEventListener('click', () => {
          base = e.body.current;
          result.innerHTML = '<div class="notice ok" role="status">Your text is kept in the editor; saving now replaces the text now on disk.</div>';
          document.getElementById('compare').innerHTML = '';
        });
      }
    }
  });
}

async function newPage() {
  const p = params();
  app.innerHTML = `<h1>New note</h1><div id="result"></div>
    <p><label>Name <input type="text" id="name" aria-label="Note name" placeholder="e.g. deploy or infra/ci"></label>
    <label>Scope <select id="scope" aria-label="Scope"><option value="personal">personal</option><option value="team"${p.get('scope') === 'team' ? ' selected' : ''}>team</option></select></label></p>
    <textarea id="editor" aria-label="Text" spellcheck="false"></textarea>
    <div class="actions"><button id="create" class="primary">Create</button></div>`;
  document.getElementById('create').addEventListener('click', async () => {
    const name = document.getElementById('name').value;
    const scope = document.getElementById('scope').value;
    try {
      const r = await api('/api/new', { scope, name, text: document.getElementById('editor').value });
      await after(r.message, link({ note: name.trim().replace(/\.md$/, ''), scope: scope === 'team' ? 'team' : null }));
    } catch (e) { document.getElementById('result').innerHTML = errorBox(e); }
  });
}

let searchController = null;
// Search as you type, with no fixed delay: a keystroke searches at once
// when no search is running; while one runs, only the latest text waits,
// and is searched as soon as it ends. So the results follow the typing one
// search behind at most, and the server runs one search at a time.
let searchRunning = null;
let searchWaiting = false;
function searchSoon() {
  if (searchRunning) { searchWaiting = true; return; }
  searchRunning = runSearch().finally(() => {
    searchRunning = null;
    if (searchWaiting) { searchWaiting = false; searchSoon(); }
  });
}
// Hits asked for: a page of 10, 10 more at each "Show more".
const SEARCH_PAGE = 10;
let searchLimit = SEARCH_PAGE;

async function runSearch(more) {
  if (more !== true) searchLimit = SEARCH_PAGE;
  const q = document.getElementById('q').value;
  const literal = document.getElementById('literal').checked;
  history.replaceState(null, '', link({ q, mode: literal ? 'literal' : null, view: q ? null : 'search' }));
  if (searchController) searchController.abort();
  searchController = new AbortController();
  const results = document.getElementById('results');
  if (!q.trim()) { results.innerHTML = '<p class="muted">Type to search MEMORY.md, notes and daily logs of both scopes.</p>'; return; }
  const started = performance.now();
  try {
    const r = await api('/api/search?' + new URLSearchParams({ q, mode: literal ? 'literal' : 'ranked', limit: searchLimit }), undefined, searchController.signal);
    const fetched = performance.now();
    const terms = r.terms.map((t) => `${esc(t.term)}(${t.count})`).join(' ');
    const shown = r.total > r.hits.length ? `${r.total} files, the best ${r.hits.length} shown` : `${r.total} file(s)`;
    const more = r.total > r.hits.length
      ? `<div class="actions"><button id="more">Show ${Math.min(SEARCH_PAGE, r.total - r.hits.length)} more</button></div>` : '';
    results.innerHTML = `<p class="muted" id="search-summary">${shown}; ${terms}</p>` + r.hits.map((h) => {
      const href = fileLink(h);
      const title = href ? `<a href="${esc(href)}">${esc(h.path)}</a>` : esc(h.path);
      const rest = h.cut ? (href ? `<a class="rest" href="${esc(href)}">… the rest in the file</a>` : '<span class="rest muted">…</span>') : '';
      return `<article class="hit"><div class="head">${title}<span class="terms">[matched: ${h.matched_terms.map(esc).join(', ')}]${h.filename_only ? ' (file name)' : ''}</span></div><pre>${highlight(h.body, h.matched_terms, !literal)}</pre>${rest}</article>`;
    }).join('') + more;
    const button = document.getElementById('more');
    if (button) button.addEventListener('click', () => { searchLimit += SEARCH_PAGE; runSearch(true); });
    // Where the time went, for the benchmark: the library's search, the
    // request as a whole, and drawing the hits.
    results.dataset.serverMs = String(r.search_ms);
    results.dataset.fetchMs = String(fetched - started);
    results.dataset.renderMs = String(performance.now() - fetched);
    results.dataset.query = q;
  } catch (e) {
    if (e.name !== 'AbortError') results.innerHTML = errorBox(e);
  }
}

async function searchPage() {
  const p = params();
  app.innerHTML = `<h1>Search</h1>
    <p><input type="search" id="q" aria-label="Search query" value="${esc(p.get('q') || '')}" placeholder="words, identifiers, dates (yesterday, 2026-05-03)" autofocus>
    <span class="modes"><label><input type="checkbox" id="literal"${p.get('mode') === 'literal' ? ' checked' : ''}> literal</label></span></p>
    <div id="results"></div>`;
  const input = document.getElementById('q');
  input.addEventListener('input', searchSoon);
  document.getElementById('literal').addEventListener('change', runSearch);
  input.focus();
  input.setSelectionRange(input.value.length, input.value.length);
  await runSearch();
}

// A diff as the library renders it: `+` added, `-` removed, the rest context.
function renderedDiff(text, label) {
  const line = (l) => {
    const cls = /^(---|\+\+\+) /.test(l) ? 'file' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : '';
    return `<span class="${cls}">${esc(l)}</span>`;
  };
  return `<pre class="diff" aria-label="${esc(label)}">${text.split('\n').map(line).join('\n')}</pre>`;
}

async function reviewPage() {
  const r = await api('/api/pending');
  const message = flash;
  flash = '';
  const items = r.pending.map((c) => `<article class="panel pending" aria-labelledby="h-${esc(c.id)}">
      <h2 id="h-${esc(c.id)}">${esc(c.id)}: ${esc(c.tool)} <span class="badge ${c.scope === 'team' ? 'team' : 'scope'}">${esc(c.scope)}</span></h2>
      <p class="muted">queued ${esc(c.time)} by ${c.source ? esc(c.source) : '(no source)'}</p>
      <h3>What it would change now</h3>
      ${renderedDiff(c.diff, 'Change ' + c.id)}
      <details><summary>Arguments</summary><pre>${esc(c.arguments)}</pre></details>
      <div class="actions"><button class="primary" data-approve="${esc(c.id)}">Approve ${esc(c.id)}</button>
        <button class="danger" data-reject="${esc(c.id)}">Reject ${esc(c.id)}</button></div>
    </article>`).join('');
  app.innerHTML = `<h1>Review</h1><div id="result">${message}</div>
    <p class="muted">With the review gate on (<code>--review</code>), the model's changes wait here, never injected, until you decide. Approving applies the change as it stands now (checked again); rejecting drops it and its text.</p>
    ${r.pending.length ? items : '<div class="notice ok" role="status">Nothing waits for review.</div>'}`;
  for (const [attr, path] of [['approve', '/api/approve'], ['reject', '/api/reject']]) {
    for (const b of app.querySelectorAll(`button[data-${attr}]`)) {
      b.addEventListener('click', async () => {
        try {
          const res = await api(path, { id: b.dataset[attr] });
          await after(`${b.dataset[attr]}: ${res.message}`);
        } catch (e) { document.getElementById('result').innerHTML = errorBox(e); }
      });
    }
  }
}

async function secretsPage() {
  const r = await api('/api/secrets');
  const rows = r.secrets.map((s) => {
    const href = fileLink(s);
    const where = s.line === 0 ? esc(s.path) : `${esc(s.path)}:${s.line}`;
    // A saved version links to its comparison with the file now.
    const target = href && s.version ? fileLink(s, { diff: s.version }) + '#h-diff' : href;
    const what = s.line === 0 ? 'its name' : s.version ? 'saved version ' + esc(s.version) : 'the file now';
    return `<tr><td>${target ? `<a href="${esc(target)}">${where}</a>` : where}</td><td>${what}</td><td>${esc(s.rule)}</td><td><code>${esc(s.masked)}</code></td></tr>`;
  }).join('');
  app.innerHTML = `<h1>Secrets</h1>
    ${r.secrets.length
      ? `<div class="notice error" role="alert">${r.secrets.length} secret(s) stored. Edit them out; earlier versions in history keep them until pruned.</div>
         <table aria-label="Secrets"><thead><tr><th>where</th><th>in</th><th>rule</th><th>value (masked)</th></tr></thead><tbody>${rows}</tbody></table>`
      : '<div class="notice ok" role="status">No secrets found in the store.</div>'}`;
}

async function route() {
  delete document.body.dataset.ready;
  delete document.body.dataset.paintedMs;
  const p = params();
  let view = p.get('view') || 'overview';
  if (p.has('q')) view = 'search';
  if (p.has('note') || p.has('file')) view = p.get('edit') ? 'edit' : 'file';
  setActive(view === 'file' || view === 'edit' ? 'notes' : view);
  const pages = { overview, notes, search: searchPage, secrets: secretsPage, review: reviewPage, new: newPage, file: filePage, edit: editPage };
  const page = pages[view] || overview;
  try {
    await page();
  } catch (e) {
    app.innerHTML = errorBox(e);
  }
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
  // The CSP allows no inline styles: widths are set through the DOM.
  for (const el of app.querySelectorAll('[data-width]')) el.style.width = el.dataset.width + '%';
  document.body.dataset.readyMs = String(performance.now());
  document.body.dataset.ready = view;
  // When the page has been painted with it (after the next frame).
  requestAnimationFrame(() => setTimeout(() => { document.body.dataset.paintedMs = String(performance.now()); }, 0));
}

route();
