// playground.js - the preset playground (docs/web.md, "The playground"):
// edit a preset, see the map. A classic script over the global `cavegen`
// (dist/cavegen.js), so that the page works opened from file:// as well
// as from any static file server.
'use strict';

(function () {
  // The colours of the CLI's pictures (src/io/palette.c), so that the
  // canvas shows what `cavegen -o map.png` writes.
  const WALL = [46, 40, 36];
  const FLOOR = [226, 212, 178];
  const KINDS = [
    [240, 163, 255], [0, 117, 220], [153, 63, 0], [76, 0, 92], [25, 25, 25],
    [0, 92, 49], [43, 206, 72], [255, 204, 153], [128, 128, 128], [148, 255, 181],
    [143, 124, 0], [157, 204, 0], [194, 0, 136], [0, 51, 128], [255, 164, 5],
    [255, 168, 187], [66, 102, 0], [255, 0, 16], [94, 241, 242], [0, 153, 143],
    [224, 255, 102], [116, 10, 255], [153, 0, 0], [255, 255, 128], [255, 225, 0],
    [255, 80, 5],
  ];
  const RAMP = [[253, 231, 37], [94, 201, 98], [33, 145, 140], [59, 82, 139], [68, 1, 84]];
  const MAX_SIDE = 4096; // the page's own bound: a bigger map would stall typing
  const BATCH = 8;
  const U64_MAX = (1n << 64n) - 1n;

  function markColour(sym) {
    if (sym === '<') return [40, 175, 60];
    if (sym === '>') return [205, 40, 40];
    if (sym === 'x') return [95, 110, 140];
    if (sym >= 'A' && sym <= 'Z') return KINDS[sym.charCodeAt(0) - 65];
    return [240, 190, 30];
  }

  // The reach picture's ramp (src/io/palette.c, cg__ramp_rgb): distance i of n.
  function rampColour(i, n) {
    if (n < 2) return RAMP[0];
    const segs = RAMP.length - 1;
    const pos = Math.floor((i * segs * 256) / (n - 1));
    const k = Math.min(pos >> 8, segs - 1);
    const f = pos - k * 256;
    const a = RAMP[k];
    const b = RAMP[k + 1];
    return [0, 1, 2].map((c) => Math.floor((a[c] * (256 - f) + b[c] * f) / 256));
  }

  const $ = (id) => document.getElementById(id);
  const ui = {
    preset: $('preset'), summary: $('summary'), text: $('text'), gutter: $('gutter'),
    error: $('error'), overrides: $('overrides'), seed: $('seed'), width: $('width'),
    height: $('height'), scale: $('scale'), canvas: $('map'), stats: $('stats'),
    batch: $('batch'), timing: $('timing'), moves: $('moves'), movesOut: $('moves-out'),
    reachInfo: $('reach-info'),
  };

  const state = {
    cave: null, // the current map (cavegen's Cave), or null after an error
    reachStart: null, // [x, y] or null
    builtinText: '',
    genMs: 0,
    pending: false,
  };
  window.playground = state; // for the browser test and the curious

  function seedValue() {
    const t = ui.seed.value.trim();
    if (!/^[0-9]+$/.test(t) || BigInt(t) > U64_MAX) return null;
    return BigInt(t);
  }

  function sizeValue(input) {
    const v = Number(input.value);
    return input.value.trim() === '' || !Number.isInteger(v) || v < 1 ? 0 : Math.min(v, MAX_SIDE);
  }

  function overrideList() {
    return ui.overrides.value.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  }

  function showError(diag) {
    const lines = ui.text.value.split('\n').length;
    const errLine = diag && diag.stage === 'parse' ? diag.line : 0;
    let html = '';
    for (let i = 1; i <= lines; i++) html += i === errLine ? '<span class="err">' + i + '</span>\n' : i + '\n';
    ui.gutter.innerHTML = html;
    ui.gutter.scrollTop = ui.text.scrollTop;
    if (!diag) {
      ui.error.hidden = true;
      ui.error.textContent = '';
      return;
    }
    const where = diag.line ? 'line ' + diag.line + ', column ' + diag.column + ': ' : '';
    const stage = { parse: '', overrides: 'overrides: ', run: 'run: ', preset: '' }[diag.stage] || '';
    ui.error.textContent = stage + where + diag.message;
    ui.error.dataset.line = String(diag.line);
    ui.error.dataset.column = String(diag.column);
    ui.error.hidden = false;
  }

  // Draws a map one pixel per cell; the canvas is scaled up by CSS-free
  // nearest-neighbour drawImage, so every cell is scale x scale pixels.
  function cellImage(cave, reach) {
    const img = new ImageData(cave.width, cave.height);
    const px = img.data;
    let maxd = 0;
    if (reach) for (const d of reach.distances) if (d !== cavegen.UNREACHED_DISTANCE && d > maxd) maxd = d;
    for (let i = 0; i < cave.cells.length; i++) {
      let c = cave.cells[i] ? WALL : FLOOR;
      if (reach && reach.distances[i] !== cavegen.UNREACHED_DISTANCE) c = rampColour(reach.distances[i], maxd + 1);
      px[i * 4] = c[0]; px[i * 4 + 1] = c[1]; px[i * 4 + 2] = c[2]; px[i * 4 + 3] = 255;
    }
    for (const m of cave.markers) {
      const c = markColour(m.symbol);
      const i = (m.y * cave.width + m.x) * 4;
      px[i] = c[0]; px[i + 1] = c[1]; px[i + 2] = c[2];
    }
    return img;
  }

  function blit(canvas, img, scale) {
    const small = document.createElement('canvas');
    small.width = img.width;
    small.height = img.height;
    small.getContext('2d').putImageData(img, 0, 0);
    canvas.width = img.width * scale;
    canvas.height = img.height * scale;
    const ctx = canvas.getContext('2d');
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(small, 0, 0, canvas.width, canvas.height);
  }

  function currentReach() {
    const cave = state.cave;
    if (!cave || !state.reachStart) return null;
    const moves = Number(ui.moves.value);
    const limit = moves >= Number(ui.moves.max) ? undefined : moves;
    return cave.reach(state.reachStart[0], state.reachStart[1], limit);
  }

  function draw() {
    const cave = state.cave;
    if (!cave) return;
    const reach = currentReach();
    const scale = Math.max(1, Math.min(32, Number(ui.scale.value) || 1));
    blit(ui.canvas, cellImage(cave, reach), scale);
    if (scale >= 4) { // outline the markers, so that a one-cell point shows
      const ctx = ui.canvas.getContext('2d');
      ctx.strokeStyle = 'rgb(0,0,0)';
      ctx.lineWidth = 1;
      for (const m of cave.markers) ctx.strokeRect(m.x * scale + 0.5, m.y * scale + 0.5, scale - 1, scale - 1);
    }
    if (reach) {
      ui.reachInfo.textContent = 'reach from ' + state.reachStart.join(',') + ': ' + reach.reached + ' cells';
    } else {
      ui.reachInfo.textContent = 'click a floor cell for its reach';
    }
    ui.movesOut.textContent = Number(ui.moves.value) >= Number(ui.moves.max) ? 'no limit' : ui.moves.value;
  }

  function showStats(cave) {
    ui.stats.innerHTML = '';
    if (!cave) return;
    for (const [k, v] of Object.entries(cave.stats)) {
      const tr = ui.stats.insertRow();
      tr.insertCell().textContent = k;
      tr.insertCell().textContent = String(v);
    }
    const tr = ui.stats.insertRow();
    tr.insertCell().textContent = 'markers';
    const shown = cave.markers.slice(0, 12).map((m) => m.symbol + ' ' + m.x + ',' + m.y).join('  ');
    tr.insertCell().textContent = cave.markers.length > 12 ? shown + '  ... (' + cave.markers.length + ')' : shown || 'none';
  }

  // The preset's settings as buttons: a click puts NAME=VALUE in the
  // overrides, replacing a line for the same NAME.
  function showSettings() {
    const box = $('settings');
    box.innerHTML = '';
    for (const setting of cavegen.settings(ui.text.value)) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = setting;
      b.addEventListener('click', () => {
        const key = setting.slice(0, setting.indexOf('=') + 1);
        const lines = overrideList().filter((l) => !l.startsWith(key));
        lines.push(setting);
        ui.overrides.value = lines.join('\n');
        ui.overrides.focus();
        schedule();
      });
      box.append(b);
    }
  }

  function options(seed) {
    const text = ui.text.value;
    const o = { text, seed, width: sizeValue(ui.width), height: sizeValue(ui.height), overrides: overrideList() };
    if (text === state.builtinText) o.name = ui.preset.value; // JSON records the preset's name as the CLI does
    return o;
  }

  function generate() {
    state.pending = false;
    const seed = seedValue();
    if (seed === null) {
      showError({ stage: 'seed', line: 0, column: 0, message: 'seed must be an integer 0..' + U64_MAX });
      return;
    }
    showSettings();
    const t0 = performance.now();
    const result = cavegen.generate(options(seed));
    state.genMs = performance.now() - t0;
    if (state.cave) state.cave.free();
    state.cave = result.ok ? result : null;
    showError(result.ok ? null : result.diag);
    ui.canvas.classList.toggle('stale', !result.ok); // the last good map, dimmed
    showStats(state.cave);
    if (state.cave) {
      if (state.reachStart && (state.reachStart[0] >= result.width || state.reachStart[1] >= result.height)) {
        state.reachStart = null;
      }
      const t1 = performance.now();
      draw();
      const drawMs = performance.now() - t1;
      ui.timing.textContent = result.width + 'x' + result.height + ' generated in ' + state.genMs.toFixed(2)
        + ' ms, drawn in ' + drawMs.toFixed(2) + ' ms';
      ui.timing.dataset.ms = String(state.genMs);
    }
    saveUrl();
    drawBatch(seed);
  }

  function schedule() {
    if (state.pending) return;
    state.pending = true;
    requestAnimationFrame(generate);
  }

  function drawBatch(seed) {
    ui.batch.innerHTML = '';
    if (!state.cave) return;
    for (let k = 1n; k <= BigInt(BATCH); k++) {
      const s = (seed + k) & U64_MAX;
      const cave = cavegen.generate(options(s));
      const fig = document.createElement('figure');
      const canvas = document.createElement('canvas');
      if (cave.ok) {
        const scale = Math.max(1, Math.floor(100 / cave.width));
        blit(canvas, cellImage(cave, null), scale);
        canvas.style.width = Math.min(100, cave.width * scale) + 'px';
        cave.free();
      }
      const cap = document.createElement('figcaption');
      cap.textContent = cave.ok ? s.toString() : s + ': ' + cave.diag.message;
      fig.append(canvas, cap);
      fig.dataset.seed = s.toString();
      fig.addEventListener('click', () => { ui.seed.value = s.toString(); schedule(); });
      ui.batch.append(fig);
    }
  }

  // The state in the URL's fragment: p preset, t text (when edited), s
  // seed, w and h size, z scale, o overrides, r reach start and moves.
  function saveUrl() {
    const q = new URLSearchParams();
    q.set('p', ui.preset.value);
    if (ui.text.value !== state.builtinText) q.set('t', ui.text.value);
    q.set('s', ui.seed.value.trim());
    if (ui.width.value) q.set('w', ui.width.value);
    if (ui.height.value) q.set('h', ui.height.value);
    q.set('z', ui.scale.value);
    if (ui.overrides.value.trim()) q.set('o', ui.overrides.value.trim());
    if (state.reachStart) q.set('r', state.reachStart.join(',') + ',' + ui.moves.value);
    const hash = '#' + q.toString();
    if (location.hash !== hash) history.replaceState(null, '', hash);
  }

  function loadUrl() {
    const q = new URLSearchParams(location.hash.slice(1));
    const names = cavegen.presets().map((p) => p.name);
    const p = q.get('p');
    ui.preset.value = names.includes(p) ? p : 'classic';
    state.builtinText = cavegen.presetText(ui.preset.value);
    ui.text.value = q.has('t') ? q.get('t') : state.builtinText;
    if (q.has('s')) ui.seed.value = q.get('s');
    ui.width.value = q.get('w') || '';
    ui.height.value = q.get('h') || '';
    if (q.has('z')) ui.scale.value = q.get('z');
    ui.overrides.value = q.get('o') || '';
    const r = (q.get('r') || '').split(',').map(Number);
    if (r.length === 3 && r.every(Number.isInteger)) {
      state.reachStart = [r[0], r[1]];
      ui.moves.value = String(r[2]);
    }
    showSummary();
  }

  function showSummary() {
    const p = cavegen.presets().find((x) => x.name === ui.preset.value);
    ui.summary.textContent = p ? p.summary : '';
  }

  function download(name, data, type) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type }));
    a.download = name;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  function baseName() { return 'cave-' + ui.preset.value + '-' + ui.seed.value.trim(); }

  function wire() {
    ui.preset.addEventListener('change', () => {
      state.builtinText = cavegen.presetText(ui.preset.value);
      ui.text.value = state.builtinText;
      showSummary();
      schedule();
    });
    for (const el of [ui.text, ui.overrides, ui.seed, ui.width, ui.height]) el.addEventListener('input', schedule);
    ui.scale.addEventListener('input', () => { draw(); saveUrl(); });
    ui.text.addEventListener('scroll', () => { ui.gutter.scrollTop = ui.text.scrollTop; });
    $('next-seed').addEventListener('click', () => {
      const s = seedValue();
      ui.seed.value = s === null ? '0' : ((s + 1n) & U64_MAX).toString();
      schedule();
    });
    ui.moves.addEventListener('input', () => { draw(); saveUrl(); });
    $('clear-reach').addEventListener('click', () => { state.reachStart = null; draw(); saveUrl(); });
    ui.canvas.addEventListener('click', (ev) => {
      const cave = state.cave;
      if (!cave) return;
      const rect = ui.canvas.getBoundingClientRect();
      const x = Math.floor(((ev.clientX - rect.left) / rect.width) * cave.width);
      const y = Math.floor(((ev.clientY - rect.top) / rect.height) * cave.height);
      if (x < 0 || y < 0 || x >= cave.width || y >= cave.height) return;
      if (cave.cells[y * cave.width + x] !== 0) {
        ui.reachInfo.textContent = x + ',' + y + ' is a wall: click a floor cell';
        return;
      }
      state.reachStart = [x, y];
      draw();
      saveUrl();
    });
    $('dl-png').addEventListener('click', () => ui.canvas.toBlob((b) => download(baseName() + '.png', b)));
    for (const [id, fmt, ext, type] of [['dl-ascii', 'ascii', 'txt', 'text/plain'],
      ['dl-json', 'json', 'json', 'application/json'], ['dl-tmj', 'tmj', 'tmj', 'application/json']]) {
      $(id).addEventListener('click', () => {
        if (state.cave) download(baseName() + '.' + ext, state.cave.format(fmt), type);
      });
    }
    $('copy-link').addEventListener('click', () => {
      saveUrl();
      if (navigator.clipboard) navigator.clipboard.writeText(location.href).catch(() => {});
    });
  }

  if (typeof cavegen === 'undefined') { // dist/ is made by web/build.sh, not kept in git
    document.getElementById('timing').textContent = 'dist/cavegen.js is missing: run web/build.sh first';
    return;
  }
  cavegen.init().then(() => {
    $('version').textContent = 'libcavegen ' + cavegen.version() + ' (WebAssembly)';
    for (const p of cavegen.presets()) {
      const opt = document.createElement('option');
      opt.value = p.name;
      opt.textContent = p.name;
      ui.preset.append(opt);
    }
    loadUrl();
    wire();
    generate();
    document.body.dataset.ready = '1';
  });
})();
