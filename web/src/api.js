// api.js - cavegen for JavaScript: the library compiled to WebAssembly
// (cavegen_js.c) behind a small API (docs/web.md, "The JavaScript module").
//
// This file is the module's source. web/build.sh wraps it twice: as the
// ES module dist/cavegen.mjs and as the classic script dist/cavegen.js
// (the global `cavegen`), which is what a page opened from file:// can
// load: browsers refuse ES modules and fetch() there. Both carry the
// WebAssembly bytes inline (WASM_BASE64, defined by the wrapper), so
// nothing is fetched at run time. Only `export function` and
// `export const` may be used below: the classic wrapper strips `export`.

/* global WASM_BASE64 */

const FORMATS = { ascii: 0, json: 2, tmx: 3, tmj: 4, pbm: 5, distances: 6, ansi: 7 };
const MARKERS = ['none', 'entrance', 'exit', 'poi', 'blocked'];
const STATUS = ['OK', 'EINVAL', 'ENOMEM', 'EOVERFLOW', 'EPARSE', 'EIO', 'EFAIL', 'EUNSUPPORTED'];
const STAGES = ['none', 'overrides', 'parse', 'run'];
const STATS = ['floor', 'floor_permille', 'regions', 'largest_region', 'dead_ends', 'points',
  'path_length'];
const U64_MAX = (1n << 64n) - 1n;
const UNREACHED = 0xffffffff;

let wasm = null; // the instance's exports once init() has resolved
let starting = null;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
const finalizer = typeof FinalizationRegistry === 'function'
  ? new FinalizationRegistry((handle) => wasm.cgjs_free(handle)) : null;

function decodeBase64(text) {
  if (typeof atob === 'function') {
    const bin = atob(text);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }
  return new Uint8Array(Buffer.from(text, 'base64'));
}

// The module is built as standalone WebAssembly: its few imports are the
// C library's links to a system (files, exit) that the library never uses;
// they fail loudly if ever called. Growing memory needs no JavaScript.
function importsFor(module) {
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function') continue;
    imports[imp.module] = imports[imp.module] || {};
    imports[imp.module][imp.name] = imp.name === 'emscripten_notify_memory_growth'
      ? () => {}
      : () => { throw new Error('cavegen: the WebAssembly module called ' + imp.name); };
  }
  return imports;
}

/** Compiles and starts the WebAssembly module; generate() and the other
 * calls need it done. Resolves at once when already done. */
export function init() {
  if (!starting) {
    starting = WebAssembly.compile(decodeBase64(WASM_BASE64)).then(async (module) => {
      const instance = await WebAssembly.instantiate(module, importsFor(module));
      if (instance.exports._initialize) instance.exports._initialize();
      wasm = instance.exports;
    });
  }
  return starting;
}

function need() {
  if (!wasm) throw new Error('cavegen: call and await init() first');
  return wasm;
}

function bytes() { return new Uint8Array(wasm.memory.buffer); }

function cString(ptr) {
  ptr >>>= 0;
  if (!ptr) return null;
  const heap = bytes();
  let end = ptr;
  while (heap[end]) end++;
  return fromUtf8.decode(heap.subarray(ptr, end));
}

// n bytes of the module's memory, or 0 when they cannot be had. The C
// side's size_t is 32 bits: a larger n must not reach it, where it would
// wrap to a small block that the copy then overruns.
function alloc(n) {
  if (!Number.isSafeInteger(n) || n < 0 || n > 0xffffffff) return 0;
  return wasm.cgjs_alloc(n) >>> 0;
}

function outOfMemory(what) {
  return new RangeError('cavegen: no room in WebAssembly memory for ' + what);
}

// Copies bytes into the module's memory; the caller releases the pointer.
function toWasm(data) {
  const ptr = alloc(data.length);
  if (!ptr) throw outOfMemory(data.length + ' bytes of input');
  bytes().set(data, ptr);
  return ptr;
}

/** The library's version, "MAJOR.MINOR.PATCH". */
export function version() { return cString(need().cgjs_version()); }

/** The built-in presets: [{name, summary}], in the CLI's order. */
export function presets() {
  const w = need();
  const list = [];
  const n = w.cgjs_preset_count() >>> 0;
  for (let i = 0; i < n; i++) {
    list.push({ name: cString(w.cgjs_preset_name(i)), summary: cString(w.cgjs_preset_summary(i)) || '' });
  }
  return list;
}

/** The text of the built-in preset name, or null for no such preset. */
export function presetText(name) {
  const w = need();
  const nameBytes = utf8.encode(name + '\0');
  const namePtr = toWasm(nameBytes);
  const lenPtr = alloc(4);
  if (!lenPtr) throw outOfMemory('a length');
  const textPtr = w.cgjs_preset_text(namePtr, lenPtr) >>> 0;
  const len = new Uint32Array(w.memory.buffer, lenPtr, 1)[0];
  const text = textPtr ? fromUtf8.decode(bytes().subarray(textPtr, textPtr + len)) : null;
  w.cgjs_release(namePtr);
  w.cgjs_release(lenPtr);
  return text;
}

/** The settings a preset text offers, each "NAME=VALUE" with the value it
 * has, in the order of the text: what overrides can change (the comments
 * of `cavegen --show-preset NAME`). */
export function settings(text) {
  const w = need();
  const data = utf8.encode(text);
  const ptr = toWasm(data);
  const out = w.cgjs_settings(ptr, data.length) >>> 0;
  w.cgjs_release(ptr);
  if (!out) throw outOfMemory('the settings of a preset');
  const list = cString(out);
  w.cgjs_release(out);
  return list.split('\n').filter((l) => l !== '');
}

function parseSeed(seed) {
  let s;
  if (seed === undefined || seed === null) s = 0n;
  else if (typeof seed === 'bigint') s = seed;
  else if (typeof seed === 'number' && Number.isSafeInteger(seed)) s = BigInt(seed);
  else if (typeof seed === 'string' && /^[0-9]+$/.test(seed.trim())) s = BigInt(seed.trim());
  else throw new RangeError('cavegen: seed must be an integer 0..' + U64_MAX + ', not ' + seed);
  if (s < 0n || s > U64_MAX) {
    throw new RangeError('cavegen: seed must be an integer 0..' + U64_MAX + ', not ' + seed);
  }
  return s;
}

function parseSize(v, what) {
  if (v === undefined || v === null || v === 0) return 0;
  if (!Number.isInteger(v) || v < 1 || v > 1048576) {
    throw new RangeError('cavegen: ' + what + ' must be an integer 1..1048576, not ' + v);
  }
  return v;
}

// Overrides as the CLI's -D takes them: ["NAME=VALUE", ...] or {NAME: VALUE}.
function settingsOf(overrides) {
  if (!overrides) return [];
  const list = Array.isArray(overrides)
    ? overrides.map(String)
    : Object.entries(overrides).map(([k, v]) => k + '=' + v);
  return list.filter((s) => s.trim() !== '');
}

function failure(stage, status, line, column, message, text) {
  return {
    ok: false,
    diag: { stage, status, line, column, message },
    text,
  };
}

/** Generates a map (docs/web.md has the options and the result). Never
 * throws for bad preset text, overrides or a failed run: the result has
 * ok false and diag {stage, status, line, column, message}. Throws
 * RangeError for a seed or size of the wrong type or range. */
export function generate(options = {}) {
  const w = need();
  let text = options.text;
  let name = options.name === undefined ? null : options.name;
  if (text === undefined || text === null) {
    const preset = options.preset || 'type2';
    text = presetText(preset);
    if (text === null) {
      const names = presets().map((p) => p.name);
      return failure('preset', 'EINVAL', 0, 0,
        "no built-in preset '" + preset + "' (one of " + names.join(', ') + ')', null);
    }
    if (options.name === undefined) name = preset;
  }
  const seed = parseSeed(options.seed);
  const width = parseSize(options.width, 'width');
  const height = parseSize(options.height, 'height');
  const settings = settingsOf(options.overrides);

  const textBytes = utf8.encode(text);
  const textPtr = toWasm(textBytes);
  const setPtr = toWasm(utf8.encode(settings.map((s) => s + '\0').join('')));
  const namePtr = name === null ? 0 : toWasm(utf8.encode(name + '\0'));
  const handle = w.cgjs_generate(textPtr, textBytes.length, setPtr, settings.length,
    Number(seed & 0xffffffffn), Number(seed >> 32n), width, height, namePtr) >>> 0;
  w.cgjs_release(textPtr);
  w.cgjs_release(setPtr);
  if (namePtr) w.cgjs_release(namePtr);
  if (!handle) return failure('run', 'ENOMEM', 0, 0, 'out of memory', text);

  const status = w.cgjs_status(handle);
  if (status !== 0) {
    const result = failure(STAGES[w.cgjs_stage(handle)], STATUS[status] || String(status),
      w.cgjs_diag_line(handle), w.cgjs_diag_column(handle),
      cString(w.cgjs_diag_message(handle)), text);
    w.cgjs_free(handle);
    return result;
  }
  const n = (w.cgjs_width(handle) >>> 0) * (w.cgjs_height(handle) >>> 0);
  const probe = alloc(n); // the cells are copied out: a map whose copy does not fit fails here
  if (!probe) {
    const wh = (w.cgjs_width(handle) >>> 0) + 'x' + (w.cgjs_height(handle) >>> 0);
    w.cgjs_free(handle);
    return failure('run', 'ENOMEM', 0, 0, 'out of memory for a copy of the cells of a ' + wh
      + ' map (WebAssembly has 4 GB)', text);
  }
  w.cgjs_release(probe);
  return new Cave(handle, seed);
}

class Cave {
  constructor(handle, seed) {
    const w = wasm;
    this.ok = true;
    this.diag = null;
    this.width = w.cgjs_width(handle) >>> 0;
    this.height = w.cgjs_height(handle) >>> 0;
    this.cells = copyCells(handle, this.width * this.height, 0);
    this.markers = [];
    const n = w.cgjs_marker_count(handle) >>> 0;
    const out = alloc(16);
    if (!out) throw outOfMemory('a marker');
    for (let i = 0; i < n; i++) {
      w.cgjs_marker(handle, i, out);
      const [x, y, kind, symbol] = new Uint32Array(w.memory.buffer, out, 4);
      const m = { x, y, kind: MARKERS[kind], symbol: String.fromCharCode(symbol) };
      if (symbol >= 65 && symbol <= 90) m.name = cString(w.cgjs_kind_name(handle, symbol));
      this.markers.push(m);
    }
    w.cgjs_release(out);
    const attempts = w.cgjs_attempts(handle) >>> 0;
    const runSeed = (BigInt(w.cgjs_run_seed_hi(handle) >>> 0) << 32n)
      | BigInt(w.cgjs_run_seed_lo(handle) >>> 0);
    const stats = { width: this.width, height: this.height };
    const figures = w.cgjs_stats(handle) >>> 0;
    if (figures) {
      const f = new Float64Array(w.memory.buffer, figures, STATS.length);
      STATS.forEach((key, i) => { stats[key] = f[i]; });
    }
    stats.attempts = attempts;
    stats.seed = seed.toString();
    stats.run_seed = runSeed.toString();
    this.stats = stats;
    this.handle = handle;
    if (finalizer) finalizer.register(this, handle, this);
  }

  live() {
    if (!this.handle) throw new Error('cavegen: this map was freed');
    return this.handle;
  }

  /** The ASCII format's character of every cell ('#', '.', markers), row
   * after row: cg_grid_copy's symbols mode. */
  symbols() { return copyCells(this.live(), this.width * this.height, 1); }

  /** The bytes of the map in format: 'ascii', 'json', 'tmx', 'tmj', 'ansi',
   * 'pbm' (scale 4) or 'distances' (no reach: only a header). columns: the
   * ANSI picture's widest, in characters (0: one column per cell). */
  formatBytes(format, { columns = 0 } = {}) {
    const w = wasm;
    const handle = this.live();
    if (!(format in FORMATS)) {
      throw new RangeError("cavegen: format must be one of " + Object.keys(FORMATS).join(', ')
        + ", not '" + format + "'");
    }
    const st = w.cgjs_write(handle, FORMATS[format], columns);
    if (st !== 0) throw new Error('cavegen: writing ' + format + ': ' + cString(w.cgjs_diag_message(handle)));
    const ptr = w.cgjs_out(handle) >>> 0;
    return bytes().slice(ptr, ptr + (w.cgjs_out_len(handle) >>> 0));
  }

  /** The map as text in format (see formatBytes), the CLI's bytes for the
   * same preset, seed and size. */
  format(format, options) { return fromUtf8.decode(this.formatBytes(format, options)); }

  /** The reach from the floor cell (x, y) within moves moves (omitted:
   * no limit): {distances: Uint32Array, width * height, 0xffffffff where
   * not reached; reached: the cells reached}. null when (x, y) is a wall
   * or off the map. */
  reach(x, y, moves) {
    const w = wasm;
    const handle = this.live();
    const n = this.width * this.height;
    const budget = moves === undefined || moves === null ? UNREACHED : moves >>> 0;
    const ptr = alloc(n * 4);
    if (!ptr) throw outOfMemory('the distances of a ' + this.width + 'x' + this.height + ' map');
    const st = w.cgjs_distances(handle, x >>> 0, y >>> 0, budget, ptr);
    let result = null;
    if (st === 0) {
      const distances = new Uint32Array(w.memory.buffer, ptr, n).slice();
      let reached = 0;
      for (let i = 0; i < n; i++) if (distances[i] !== UNREACHED) reached++;
      result = { distances, reached };
    }
    w.cgjs_release(ptr);
    return result;
  }

  /** Releases the map's WebAssembly memory now (else when collected);
   * cells, markers and stats stay readable. */
  free() {
    if (!this.handle) return;
    if (finalizer) finalizer.unregister(this);
    wasm.cgjs_free(this.handle);
    this.handle = 0;
  }
}

function copyCells(handle, n, mode) {
  const ptr = alloc(n);
  if (!ptr) throw outOfMemory('a copy of ' + n + ' cells');
  wasm.cgjs_copy(handle, ptr, mode);
  const cells = bytes().slice(ptr, ptr + n);
  wasm.cgjs_release(ptr);
  return cells;
}

export const UNREACHED_DISTANCE = UNREACHED;
