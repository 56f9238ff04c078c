// Which memory root to use, and whether memory is turned off: the same chain
// as the Rust host library (`agent_memory::RootResolver`), checked against
// the shared vectors in `conformance/roots/resolution.json`.
//
// The root comes from the first of: an explicit root, `AGENT_MEMORY_DIR`
// (empty counts as unset), `"root"` in the config file, the platform data
// directory + `agent-memory`. The config file is `$AGENT_MEMORY_CONFIG`
// (then it must exist), else `<platform config dir>/agent-memory/config.json`:
// a JSON object with the optional keys `root` (string) and `disabled`
// (boolean), nothing else. `AGENT_MEMORY_DISABLE` = 1/true/yes/on turns
// memory off, 0/false/no/off keeps it on (and wins over the config), any
// other value is an error. A host whose memory is off shows no context block
// and answers every tool call with `disabledReply(reason)`.

import { statSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, parse } from 'node:path';

export const ENV_DIR = 'AGENT_MEMORY_DIR';
export const ENV_DISABLE = 'AGENT_MEMORY_DISABLE';
export const ENV_CONFIG = 'AGENT_MEMORY_CONFIG';
const MAX_CONFIG_BYTES = 64 * 1024;

/** The chain failed; `kind` is `not-absolute`, `filesystem-root`, `nul`,
 * `not-a-directory`, `no-home`, `config` or `switch`. */
export class RootError extends Error {
  constructor(kind, message) {
    super(message);
    this.name = 'RootError';
    this.kind = kind;
  }
}

/** The text every tool call gets while memory is off. */
export function disabledReply(reason) {
  return `Memory is turned off (${reason}): nothing was read or written. `
    + 'Carry on without memory; do not retry memory tools in this session.';
}

export function platformDirs(home) {
  if (process.platform === 'win32') {
    const appdata = process.env.APPDATA || null;
    return [appdata, appdata];
  }
  if (!home) return [null, null];
  if (process.platform === 'darwin') {
    const base = join(home, 'Library', 'Application Support');
    return [base, base];
  }
  const xdg = (name, fallback) => {
    const value = process.env[name];
    return value && isAbsolute(value) ? value : fallback;
  };
  return [xdg('XDG_CONFIG_HOME', join(home, '.config')), xdg('XDG_DATA_HOME', join(home, '.local', 'share'))];
}

/**
 * Runs the chain. By default it reads this process's environment, home and
 * platform directories; pass `env`, `home`, `configDir` and `dataDir` to
 * decide them yourself. Returns `{root, rule, configFile, disabled}` where
 * `rule` is `explicit`, `env`, `config` or `default` and `disabled` is why
 * memory is off, or null. Throws `RootError`.
 */
export function resolveRoot(explicit = null, options = {}) {
  const env = options.env ?? process.env;
  const custom = options.env !== undefined;
  const home = options.home ?? (custom ? null : homedir());
  let configDir = options.configDir ?? null;
  let dataDir = options.dataDir ?? null;
  if (!custom && options.configDir === undefined && options.dataDir === undefined) {
    [configDir, dataDir] = platformDirs(home);
  }
  const [configFile, config] = readConfig(env, home, configDir);
  let disabled = null;
  const switchValue = env[ENV_DISABLE] || null;
  if (switchValue !== null) {
    if (switchOn(switchValue)) disabled = `${ENV_DISABLE}=${switchValue}`;
  } else if (configFile !== null && config.disabled === true) {
    disabled = `"disabled": true in ${configFile}`;
  }
  let raw; let rule; let from;
  if (explicit !== null && explicit !== undefined) {
    [raw, rule, from] = [String(explicit), 'explicit', '--root'];
  } else if (env[ENV_DIR]) {
    [raw, rule, from] = [env[ENV_DIR], 'env', ENV_DIR];
  } else if (typeof config.root === 'string') {
    [raw, rule, from] = [config.root, 'config', 'the config file'];
  } else if (dataDir) {
    [raw, rule, from] = [join(dataDir, 'agent-memory'), 'default', 'the platform data directory'];
  } else {
    throw new RootError('no-home', `cannot choose a memory root: this system has no data directory (no home directory); set ${ENV_DIR} or pass --root`);
  }
  return { root: validate(raw, from, home), rule, configFile, disabled };
}

function switchOn(value) {
  const word = value.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(word)) return true;
  if (['0', 'false', 'no', 'off'].includes(word)) return false;
  throw new RootError('switch', `${ENV_DISABLE}=\`${value}\` is not understood; set it to 1 to turn memory off, or 0 (or unset it) to keep it on`);
}

function readConfig(env, home, configDir) {
  let path; let required;
  if (env[ENV_CONFIG]) {
    [path, required] = [expand(env[ENV_CONFIG], ENV_CONFIG, home, 'config file'), true];
  } else if (configDir) {
    [path, required] = [join(configDir, 'agent-memory', 'config.json'), false];
  } else {
    return [null, {}];
  }
  const fail = (why) => new RootError('config', `cannot use the config file \`${path}\`: ${why}`);
  let info;
  try {
    info = statSync(path);
  } catch (e) {
    if (e.code === 'ENOENT') {
      if (required) throw fail(`it does not exist (named by ${ENV_CONFIG})`);
      return [null, {}];
    }
    throw fail(`cannot read it (${e.message})`);
  }
  if (!info.isFile()) throw fail('it is not a regular file');
  if (info.size > MAX_CONFIG_BYTES) throw fail(`it is ${info.size} bytes, over the ${MAX_CONFIG_BYTES}-byte cap`);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path));
  } catch {
    throw fail('it is not valid UTF-8');
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw fail(`it is not valid JSON (${e.message})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw fail('it must be a JSON object such as {"root": "~/memory"}');
  }
  for (const [key, item] of Object.entries(value)) {
    if (key === 'root' && typeof item !== 'string') throw fail('"root" must be a string');
    if (key === 'disabled' && typeof item !== 'boolean') throw fail('"disabled" must be true or false');
    if (key !== 'root' && key !== 'disabled') throw fail(`unknown key "${key}"; the keys are "root" and "disabled"`);
  }
  return [path, value];
}

function expand(raw, from, home, what) {
  const fail = (kind, why) => new RootError(kind, `the ${what} \`${raw}\` (from ${from}) ${why}`);
  if (raw.includes('\0')) throw fail('nul', 'contains a NUL character; give a plain absolute path');
  let path = raw;
  const first = raw.split(/[/\\]/)[0];
  if (first === '~') {
    if (!home) throw fail('no-home', 'starts with `~` but there is no home directory; give an absolute path');
    const rest = raw.slice(1).replace(/^[/\\]+/, '');
    path = rest ? join(home, rest) : home;
  }
  if (!path || !isAbsolute(path)) {
    throw fail('not-absolute', 'is not an absolute path (`~/…` is expanded; `~user` is not); give a full path such as /home/me/.local/share/agent-memory');
  }
  return path;
}

function validate(raw, from, home) {
  const path = expand(raw, from, home, 'memory root');
  const fail = (kind, why) => new RootError(kind, `the memory root \`${raw}\` (from ${from}) ${why}`);
  // Depth by text, `.` and `..` applied, as the Rust host does: not `join`,
  // which would also collapse what the user wrote.
  const { root } = parse(path);
  let depth = 0;
  for (const part of path.slice(root.length).split(/[/\\]/)) {
    if (part === '..') depth = Math.max(depth - 1, 0);
    else if (part !== '' && part !== '.') depth += 1;
  }
  if (depth === 0) throw fail('filesystem-root', 'is a filesystem root; memory needs a directory of its own, such as /srv/agent-memory');
  let info = null;
  try { info = statSync(path); } catch { /* missing: fine */ }
  if (info && !info.isDirectory()) throw fail('not-a-directory', 'exists and is not a directory; pick a directory, or move that file away');
  return path;
}


