// Instantiates the jco-transpiled component without paying for V8's error
// messages.
//
// jco's glue (1.35) wraps every export's post-return and realloc function in
// `try { WebAssembly.promising(f) } catch { f }`, in case the engine has JSPI.
// Node 20 and 22 have no `WebAssembly.promising`, so each of those calls
// throws a TypeError, and to word "WebAssembly.promising is not a function"
// V8 parses the calling function again to find the call site: here that
// function is the glue's 24,000-line instantiation generator, parsed again
// for each of its 24 calls. That was 440-480 ms of a 600 ms worker start
// (`node --cpu-prof`, perf: `RenderCallSite` under
// `Runtime_ThrowCalledNonCallable`), every process.
//
// So while the glue instantiates, and only where the engine lacks it,
// `WebAssembly.promising` is a function that throws at once: the glue takes
// the same `catch` branch and gets the same plain functions, without the
// re-parse. The global is put back as it was before this returns or throws.
// An engine with JSPI is left alone. Nothing else runs in the worker's
// isolate meanwhile.

/**
 * `transpiled.instantiate(getCoreModule, imports)`, with a cheap
 * `WebAssembly.promising` stand-in for its duration when the engine has none.
 * `stats.refused` counts the calls the stand-in refused.
 */
export function instantiateComponent(transpiled, getCoreModule, imports, stats = { refused: 0 }) {
  if (typeof WebAssembly.promising === 'function') return transpiled.instantiate(getCoreModule, imports);
  const had = Object.prototype.hasOwnProperty.call(WebAssembly, 'promising');
  const before = WebAssembly.promising;
  WebAssembly.promising = function promising() {
    stats.refused += 1;
    throw new TypeError('WebAssembly.promising is not available in this engine (no JSPI)');
  };
  try {
    return transpiled.instantiate(getCoreModule, imports);
  } finally {
    if (had) WebAssembly.promising = before;
    else delete WebAssembly.promising;
  }
}
