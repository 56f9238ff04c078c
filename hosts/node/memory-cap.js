// Caps the linear memories a core WebAssembly module defines.
//
// Node has no per-instance bound on wasm memory: `Worker` `resourceLimits`
// bound the JS heap only (wasm memory is an external backing store), and
// V8's `--wasm-max-mem-pages` is process-wide. A memory's declared maximum
// is per memory and enforced by the engine itself: `memory.grow` past it
// returns -1, and the component (Rust) then aborts with a trap. So the host
// rewrites the memory section of the component's core modules before it
// compiles them, giving every memory the module defines a maximum of the
// cap (never below its minimum, so instantiation still works). Imported
// memories are left alone: they are some other module's defined ones.

const PAGE = 65536;
const MEMORY_SECTION = 5;

function readU32(bytes, at) {
  let value = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) throw new Error('truncated LEB128 in a core module');
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  throw new Error('LEB128 longer than 5 bytes in a core module');
}

function writeU32(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value = Math.floor(value / 128);
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

// One memory type of the memory section, with its maximum lowered to `pages`.
function capLimits(bytes, at, pages) {
  const flags = bytes[at];
  if (flags !== 0x00 && flags !== 0x01) {
    // Shared (0x02, 0x03) or 64-bit (0x04..) memories: not what the
    // component defines; refuse rather than leave one unbounded.
    throw new Error(`a core module defines a memory with limits flags 0x${flags.toString(16)}, which the cap does not handle`);
  }
  const min = readU32(bytes, at + 1);
  let end = min.next;
  let max = null;
  if (flags === 0x01) {
    const m = readU32(bytes, end);
    max = m.value;
    end = m.next;
  }
  const capped = Math.max(min.value, max === null ? pages : Math.min(max, pages));
  return { encoded: [0x01, ...writeU32(min.value), ...writeU32(capped)], next: end };
}

/**
 * `bytes` (a core module) with every memory it defines capped at
 * `maxBytes` (rounded down to whole 64 KiB pages, at least one page).
 * @param {Uint8Array} bytes
 * @param {number} maxBytes
 * @returns {Uint8Array}
 */
export function capMemories(bytes, maxBytes) {
  const pages = Math.max(1, Math.floor(maxBytes / PAGE));
  const head = bytes.subarray(0, 8);
  if (head[0] !== 0x00 || head[1] !== 0x61 || head[2] !== 0x73 || head[3] !== 0x6d || head[4] !== 1) {
    throw new Error('not a core WebAssembly module');
  }
  const parts = [head];
  let at = 8;
  while (at < bytes.length) {
    const id = bytes[at];
    const size = readU32(bytes, at + 1);
    const start = size.next;
    const end = start + size.value;
    if (end > bytes.length) throw new Error('a section runs past the end of a core module');
    if (id !== MEMORY_SECTION) {
      parts.push(bytes.subarray(at, end));
    } else {
      const count = readU32(bytes, start);
      const body = [...writeU32(count.value)];
      let p = count.next;
      for (let i = 0; i < count.value; i++) {
        const limits = capLimits(bytes, p, pages);
        body.push(...limits.encoded);
        p = limits.next;
      }
      if (p !== end) throw new Error('the memory section has trailing bytes');
      parts.push(Uint8Array.from([id, ...writeU32(body.length), ...body]));
    }
    at = end;
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

