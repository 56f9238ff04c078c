// Runs the shared conformance vectors (`conformance/*.json`) on the Node host.
// The format is described in `conformance/README.md`; the Rust suite and the
// Python host run the same files.

import { readFileSync, readdirSync, mkdtempSync, rmSync, mkdirSync, writeFileSync, existsSync, unlinkSync, lstatSync, renameSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Memory, MemoryError } from 'agent-memory';

// The repository: where this file lives in it, or AGENT_MEMORY_REPO when the
// tests were copied next to an installed package (see .ci/hosts.sh).
export const REPO = process.env.AGENT_MEMORY_REPO ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const VECTORS_DIR = join(REPO, 'conformance');
const WIT_TYPES = join(REPO, 'wit', 'types.wit');

/** The case names of `variant`/`enum` `name` in wit/types.wit, payloads and comments dropped, in WIT order. */
export function witCases(name) {
  const lines = readFileSync(WIT_TYPES, 'utf8').split('\n').map((l) => l.trim());
  const start = lines.findIndex((l) => l === `variant ${name} {` || l === `enum ${name} {`);
  if (start < 0) throw new Error(`no variant or enum ${name} in ${WIT_TYPES}`);
  const cases = [];
  for (const line of lines.slice(start + 1)) {
    if (line === '}') return cases;
    // `%import` is the WIT escape of a keyword: the case is `import`.
    if (line && !line.startsWith('//')) cases.push(line.replace(/,$/, '').split('(')[0].replace(/^%/, ''));
  }
  throw new Error(`${name} in ${WIT_TYPES} does not end`);
}

const KNOWN_KINDS = new Set(witCases('error-kind').filter((k) => k !== 'other'));

const MATCHERS = new Set(['error', 'message_contains', 'contains', 'not_contains', 'starts_with', 'ends_with',
  'max_bytes', 'bytes', 'count', 'fields', 'len', 'each', 'head']);
const GENERATORS = new Set(['repeat', 'times', 'concat', 'lines', 'from', 'to', 'hex']);
const UNSET = Symbol('unset');

/** `[{file, case}]` for every case of every vector file, in file order. */
export function loadCases() {
  const files = readdirSync(VECTORS_DIR).filter((f) => f.endsWith('.json')).sort();
  if (files.length === 0) throw new Error(`no conformance vectors in ${VECTORS_DIR}`);
  return files.flatMap((file) =>
    JSON.parse(readFileSync(join(VECTORS_DIR, file), 'utf8')).map((c) => ({ file, case: c })),
  );
}

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isGenerator = (v) =>
  isObject(v) && ['repeat', 'concat', 'lines', 'hex'].some((k) => k in v) && Object.keys(v).every((k) => GENERATORS.has(k));
const isMatcher = (v) => isObject(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => MATCHERS.has(k));

function number(v) {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  throw new Error(`not a number in a vector: ${JSON.stringify(v)}`);
}

export function textBytes(v) {
  if (typeof v === 'string') return Buffer.from(v, 'utf8');
  if (isGenerator(v)) {
    if ('repeat' in v) return Buffer.concat(Array(Number(number(v.times))).fill(textBytes(v.repeat)));
    if ('concat' in v) return Buffer.concat(v.concat.map(textBytes));
    if ('lines' in v) {
      const template = text(v.lines);
      const out = [];
      for (let i = Number(number(v.from)); i <= Number(number(v.to)); i++) {
        out.push(template.replace(/\{i(?::0(\d+))?\}/g, (_, w) => (w ? String(i).padStart(Number(w), '0') : String(i))));
      }
      return Buffer.from(out.join(''), 'utf8');
    }
    return Buffer.from(v.hex, 'hex');
  }
  throw new Error(`not a text in a vector: ${JSON.stringify(v)}`);
}

export const text = (v) => textBytes(v).toString('utf8');

function safe(root, rel) {
  const parts = rel.split('/');
  if (!rel || rel.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`unsafe path in a vector: ${JSON.stringify(rel)}`);
  }
  return join(root, ...parts);
}

function plant(root, spec) {
  for (const d of spec.dirs ?? []) mkdirSync(safe(root, text(d)), { recursive: true });
  for (const [rel, content] of Object.entries(spec.files ?? {})) {
    const path = safe(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, textBytes(content));
  }
}

// Code-point order, as the Rust and Python runners sort.
const byCodePoint = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

function tree(root) {
  const out = [];
  const walk = (dir, rel) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(join(dir, entry.name), r);
      else if (entry.isFile()) out.push(r);
    }
  };
  walk(root, '');
  return out.sort(byCodePoint);
}

// u64 results come back as bigint: a number when safe, else a decimal string.
const json = (v) => (typeof v === 'bigint' ? (v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString()) : v);

// As the Rust runner: the warnings are in the message too.
const budget = (b) => ({
  index_lines: b.indexLines,
  index_max_lines: b.indexMaxLines,
  index_bytes: b.indexBytes,
  index_max_bytes: b.indexMaxBytes,
  block_bytes: b.blockBytes,
  block_max_bytes: b.blockMaxBytes,
  reach: b.reach,
  warning: b.warning,
});
const receipt = (r) => ({
  path: r.path,
  bytes_written: r.bytesWritten,
  truncated_from: r.truncatedFrom,
  budget: budget(r.budget),
  message: r.message,
});

const results = (r) => ({
  terms: r.terms.map((t) => ({ term: t.term, count: t.count })),
  hits: r.hits.map((h) => ({
    path: h.path, matched_terms: h.matchedTerms, total_hits: h.totalHits, body: h.body,
    filename_only: h.filenameOnly, date: h.date, is_memory_md: h.isMemoryMd,
  })),
});

const status = (s) => ({ on: s.on, model: s.model, chunks: s.chunks, ready: s.ready, why_off: s.whyOff, line: s.line });

class Session {
  constructor(c, root, memoryOptions, files, team) {
    this.root = root;
    // The project directory of a case with `project_files` (anchors).
    this.files = files;
    this.team = team;
    this.project = text(c.project);
    this.now = c.now;
    this.caps = c.caps ?? {};
    // The case's embedding model: every open enables it. Without one,
    // semantic recall is off, as in the Rust runner, whatever weights the
    // package ships.
    this.model = c.model === undefined ? null : safe(VECTORS_DIR, text(c.model));
    this.memoryOptions = memoryOptions;
    this.memory = this.open(this.project, this.now, this.caps);
  }

  open(project, now, caps) {
    const names = { max_inject_bytes: 'maxInjectBytes', max_write_bytes: 'maxWriteBytes', max_read_bytes: 'maxReadBytes' };
    const options = { ...this.memoryOptions, now, semantic: this.model !== null };
    if (this.model !== null) options.weights = this.model;
    if (this.files !== undefined) options.projectDir = this.files;
    if (this.team) options.teamDir = this.team;
    for (const [k, v] of Object.entries(caps)) {
      if (!(k in names)) throw new Error(`unknown cap ${k}`);
      options[names[k]] = Number(number(v));
    }
    return Memory.open(this.root, project, options);
  }

  execute(step) {
    const m = this.memory;
    const opt = (name) => (step[name] === undefined || step[name] === null ? undefined : text(step[name]));
    const num = (name) => (step[name] === undefined || step[name] === null ? undefined : Number(number(step[name])));
    switch (step.op) {
      case 'open':
        this.memory.close();
        this.memory = this.open(
          'project' in step ? text(step.project) : this.project,
          step.now ?? this.now,
          step.caps ?? this.caps,
        );
        return this.memory.projectSlug;
      case 'write':
        return receipt(m.write(text(step.target), text(step.content), step.mode ?? 'append', opt('name')));
      case 'read':
        return m.read(text(step.source), opt('name'));
      case 'list':
        // `stale` only when there is a mark: the seeds' shape otherwise.
        return m.listFiles().map(({ path, bytes, stale }) => (stale.length ? { path, bytes, stale } : { path, bytes }));
      case 'append_daily':
        return receipt(m.appendDaily(text(step.heading), text(step.body)));
      // The vectors pin the seeds' behaviour: literal search and the seed
      // tool set, unless a step names a mode or set.
      case 'search':
        return results(m.search(text(step.query), step.mode ?? 'literal'));
      case 'render_search':
        return m.renderSearch(m.search(text(step.query), step.mode ?? 'literal'), num('max_bytes'));
      case 'context':
        return m.contextBlock();
      case 'flush':
        return receipt(m.flushCompaction(text(step.summary), num('count')));
      case 'call_tool':
        return m.callTool(text(step.tool), typeof step.arguments === 'string' ? step.arguments : JSON.stringify(step.arguments));
      case 'tool_definitions':
        return m.toolDefinitions(step.set ?? 'seed').map((d) => ({ name: d.name, description: d.description, parameters: d.parameters }));
      case 'usage_prompt':
        return m.usagePrompt(step.set ?? 'seed');
      case 'effective_reserve':
        return json(m.effectiveReserve(number(step.base), opt('block')));
      case 'append_memory_block':
        return m.appendMemoryBlock(text(step.preamble), opt('block'));
      case 'estimate_tokens':
        return json(m.estimateTokens(text(step.text)));
      case 'plant':
        plant(this.root, step);
        return null;
      case 'remove':
        unlinkSync(safe(this.root, text(step.path)));
        return null;
      case 'file': {
        const path = safe(this.root, text(step.path));
        return existsSync(path) ? readFileSync(path).toString('utf8') : null;
      }
      case 'tree':
        return tree(this.root);
      case 'semantic_status':
        return status(m.semanticStatus());
      case 'semantic_index':
        return status(m.indexVectors(num('limit')));
      case 'semantic_off':
        m.disableSemantic(text(step.why));
        return null;
      case 'project_plant':
      case 'project_remove':
      case 'project_rename':
      case 'project_touch': {
        if (this.files === undefined) throw new Error(`${step.op} in a case without project_files`);
        if (step.op === 'project_plant') plant(this.files, { files: step.files });
        else if (step.op === 'project_remove') unlinkSync(safe(this.files, text(step.path)));
        else if (step.op === 'project_rename') {
          const to = safe(this.files, text(step.to));
          mkdirSync(dirname(to), { recursive: true });
          renameSync(safe(this.files, text(step.from)), to);
        } else {
          // An hour back: another mtime, the same bytes.
          const when = Date.now() / 1000 - 3600;
          utimesSync(safe(this.files, text(step.path)), when, when);
        }
        return null;
      }
      default:
        throw new Error(`unknown op ${JSON.stringify(step.op)}`);
    }
  }
}

/** Runs one case; throws an Error naming the step that failed. */
export function runCase(c, memoryOptions = {}) {
  const base = mkdtempSync(join(tmpdir(), 'agent-memory-vector-'));
  const root = join(base, 'root');
  mkdirSync(root);
  try {
    plant(root, c);
    let files;
    if ('project_files' in c) {
      files = join(base, 'project');
      mkdirSync(files);
      plant(files, { files: c.project_files });
    }
    let team;
    if ('team_files' in c) {
      team = join(base, 'team');
      mkdirSync(team);
      plant(team, { files: c.team_files });
    }
    const session = new Session(c, root, memoryOptions, files, team);
    try {
      c.steps.forEach((step, i) => {
        const at = `step ${i + 1} (${step.op})`;
        let outcome = UNSET;
        let failed = null;
        try {
          outcome = session.execute(step);
        } catch (e) {
          if (!(e instanceof MemoryError)) throw e;
          failed = e;
        }
        check('expect' in step ? step.expect : UNSET, outcome, failed, at);
      });
    } finally {
      session.memory.close();
    }
    const expected = [[root, 'expect_files']];
    if ('expect_team_files' in c) {
      assert(team, '`expect_team_files` without `team_files`');
      expected.push([team, 'expect_team_files']);
    }
    for (const [dir, key] of expected) {
      for (const [rel, want] of Object.entries(c[key] ?? {})) {
        const path = safe(dir, rel);
        const at = `${key} ${JSON.stringify(rel)}`;
        if (want === null) {
          assert(!existsSync(path), `${at}: exists but should not`);
        } else {
          assert(existsSync(path) && lstatSync(path).isFile(), `${at}: missing`);
          const have = readFileSync(path);
          const wantBytes = textBytes(want);
          assert(have.equals(wantBytes), `${at}:\n  expected ${show(wantBytes.toString())}\n  actual   ${show(have.toString())}`);
        }
      }
    }
    if ('expect_tree' in c) match(c.expect_tree, tree(root), 'expect_tree');
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

function assert(ok, message) {
  if (!ok) throw new Error(message);
}

function check(expect, outcome, failed, at) {
  const error = isMatcher(expect) ? expect.error : undefined;
  if (failed) {
    assert(error !== undefined, `${at}: failed with ${failed.kind}: ${failed.message}`);
    assert(failed.kind === error, `${at}: expected error ${error}, got ${failed.kind}: ${failed.message}`);
    // A kind the WIT names, or one that came as `other(name)`: never the
    // catch-all's own name.
    assert(KNOWN_KINDS.has(failed.kind) || /^[a-z]+(-[a-z]+)*$/.test(failed.kind), `${at}: ${failed.kind} is not an error kind`);
    assert(failed.kind !== 'other', `${at}: \`other\` must carry its name`);
    if ('message_contains' in expect) {
      const part = text(expect.message_contains);
      assert(failed.message.includes(part), `${at}: the ${failed.kind} message ${JSON.stringify(failed.message)} lacks ${JSON.stringify(part)}`);
    }
    return;
  }
  assert(error === undefined, `${at}: expected error ${error}, got success ${show(outcome)}`);
  if (expect !== UNSET) match(expect, outcome, at);
}

function match(expect, actual, at) {
  if (isGenerator(expect)) {
    const want = text(expect);
    assert(actual === want, `${at}:\n  expected ${show(want)}\n  actual   ${show(actual)}`);
  } else if (isMatcher(expect)) {
    for (const [key, arg] of Object.entries(expect)) apply(key, arg, actual, `${at} [${key}]`);
  } else if (isObject(expect)) {
    assert(isObject(actual), `${at}: expected an object, got ${show(actual)}`);
    const want = Object.keys(expect).sort();
    const have = Object.keys(actual).sort();
    assert(JSON.stringify(want) === JSON.stringify(have), `${at}: keys differ: expected ${want}, actual ${have}`);
    for (const key of want) match(expect[key], actual[key], `${at}.${key}`);
  } else if (Array.isArray(expect)) {
    assert(Array.isArray(actual), `${at}: expected a list, got ${show(actual)}`);
    assert(expect.length === actual.length, `${at}: expected ${expect.length} items, got ${actual.length}: ${show(actual)}`);
    expect.forEach((want, i) => match(want, actual[i], `${at}[${i}]`));
  } else if (typeof expect === 'string' && typeof actual === 'number') {
    assert(expect === String(actual), `${at}: expected ${expect}, actual ${actual}`);
  } else {
    assert(expect === actual, `${at}:\n  expected ${show(expect)}\n  actual   ${show(actual)}`);
  }
}

function apply(key, arg, actual, at) {
  const texts = (v) => (Array.isArray(v) ? v.map(text) : [text(v)]);
  const string = () => {
    assert(typeof actual === 'string', `${at}: expected a text, got ${show(actual)}`);
    return actual;
  };
  const items = () => {
    assert(Array.isArray(actual), `${at}: expected a list, got ${show(actual)}`);
    return actual;
  };
  switch (key) {
    case 'error':
    case 'message_contains':
      throw new Error(`${at}: an error matcher on a success`);
    case 'contains':
      for (const part of texts(arg)) assert(string().includes(part), `${at}: missing ${show(part)} in ${show(actual)}`);
      break;
    case 'not_contains':
      for (const part of texts(arg)) assert(!string().includes(part), `${at}: unexpected ${show(part)} in ${show(actual)}`);
      break;
    case 'starts_with':
      assert(string().startsWith(text(arg)), `${at}: no prefix ${show(text(arg))} in ${show(actual)}`);
      break;
    case 'ends_with':
      assert(string().endsWith(text(arg)), `${at}: no suffix ${show(text(arg))} in ${show(actual)}`);
      break;
    case 'max_bytes': {
      const size = Buffer.byteLength(string(), 'utf8');
      assert(size <= Number(number(arg)), `${at}: ${size} bytes, more than ${arg}`);
      break;
    }
    case 'bytes': {
      const size = Buffer.byteLength(string(), 'utf8');
      assert(size === Number(number(arg)), `${at}: ${size} bytes, not ${arg}`);
      break;
    }
    case 'count':
      for (const [part, want] of Object.entries(arg)) {
        const have = string().split(part).length - 1;
        assert(have === Number(number(want)), `${at}: ${have} x ${show(part)}, not ${want}, in ${show(actual)}`);
      }
      break;
    case 'fields':
      assert(isObject(actual), `${at}: expected an object, got ${show(actual)}`);
      for (const [name, want] of Object.entries(arg)) {
        assert(name in actual, `${at}: no field ${name} in ${show(actual)}`);
        match(want, actual[name], `${at}.${name}`);
      }
      break;
    case 'len':
      assert(items().length === Number(number(arg)), `${at}: ${actual.length} items, not ${arg}: ${show(actual)}`);
      break;
    case 'each':
      items().forEach((item, i) => match(arg, item, `${at}[${i}]`));
      break;
    case 'head':
      assert(items().length >= arg.length, `${at}: fewer than ${arg.length} items: ${show(actual)}`);
      arg.forEach((want, i) => match(want, actual[i], `${at}[${i}]`));
      break;
    default:
      throw new Error(`${at}: unknown matcher ${key}`);
  }
}

function show(v, keep = 300) {
  const s = typeof v === 'string' ? v : JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  if (s.length <= 2 * keep) return JSON.stringify(s);
  return `${JSON.stringify(s.slice(0, keep))} …(${Buffer.byteLength(s)} bytes)… ${JSON.stringify(s.slice(-keep))}`;
}

