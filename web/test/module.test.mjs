// module.test.mjs - the JavaScript module against the CLI: the same bytes
// for every built-in preset at three seeds, in every text format, and the
// determinism suite's pinned hashes (tests/determinism/hashes.txt) for the
// ASCII, JSON and ANSI cases. Run with `node --test web/test/` after
// web/build.sh and the CMake build; CAVEGEN_CLI names the CLI (default
// build/cavegen).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as cg from '../dist/cavegen.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = process.env.CAVEGEN_CLI || join(root, 'build', 'cavegen');
const SEEDS = ['0', '42', '18446744073709551615'];
const utf8 = new TextDecoder();

await cg.init();

function run(args) {
  assert.ok(existsSync(cli), 'no CLI at ' + cli + ': build it first (CAVEGEN_CLI names another)');
  return execFileSync(cli, args, { maxBuffer: 1 << 28 });
}

function sha(bytes) { return createHash('sha256').update(bytes).digest('hex'); }

// The suite's digest of a case that writes only stdout (run.py's manifest),
// the version in JSON replaced as run.py does.
function digest(stdout) {
  const version = cg.version();
  const text = Buffer.from(stdout).toString('latin1')
    .replaceAll('"cavegen_version": "' + version + '"', '"cavegen_version": "VERSION"')
    .replaceAll('cavegen ' + version, 'cavegen VERSION');
  return sha(Buffer.from('exit 0\nstdout ' + sha(Buffer.from(text, 'latin1')) + '\n'));
}

function pinned() {
  const map = new Map();
  for (const line of readFileSync(join(root, 'tests/determinism/hashes.txt'), 'utf8').split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const [hash, name] = line.split('  ');
    map.set(name, hash);
  }
  return map;
}

const names = cg.presets().map((p) => p.name);

test('the built-in presets are the CLI\'s, with their texts', () => {
  const listed = utf8.decode(run(['--list-presets'])).trim().split('\n').map((l) => l.split(/\s+/)[0]);
  assert.deepEqual(names, listed);
  assert.ok(names.length >= 8);
  for (const name of names) {
    assert.equal(cg.presetText(name), readFileSync(join(root, 'presets', name + '.preset'), 'utf8'));
  }
  assert.equal(cg.presetText('no-such-preset'), null);
});

for (const name of names) {
  for (const seed of SEEDS) {
    test(`${name} seed ${seed}: ascii, json, tmj, tmx, ansi as the CLI writes them`, () => {
      const cave = cg.generate({ preset: name, seed });
      assert.ok(cave.ok, cave.diag && cave.diag.message);
      const ascii = cave.formatBytes('ascii');
      assert.deepEqual(ascii, new Uint8Array(run(['-p', name, '-s', seed, '-o', '-'])));
      for (const f of ['json', 'tmj', 'tmx', 'ansi']) {
        assert.deepEqual(cave.formatBytes(f), new Uint8Array(run(['-p', name, '-s', seed, '-f', f])),
          f + ' differs');
      }
      // cells and symbols are the ASCII map's, row after row
      const rows = utf8.decode(ascii).split('\n').slice(0, cave.height);
      assert.equal(rows.length, cave.height);
      const symbols = cave.symbols();
      for (let y = 0; y < cave.height; y++) {
        assert.equal(rows[y].length, cave.width);
        for (let x = 0; x < cave.width; x++) {
          const ch = rows[y][x];
          assert.equal(symbols[y * cave.width + x], ch.charCodeAt(0));
          assert.equal(cave.cells[y * cave.width + x], ch === '#' ? 1 : 0, `cell ${x},${y}`);
        }
      }
      // markers are the map's marked cells, in (y, x) order
      const marked = [];
      rows.forEach((r, y) => [...r].forEach((ch, x) => { if (ch !== '#' && ch !== '.') marked.push([x, y, ch]); }));
      assert.deepEqual(cave.markers.map((m) => [m.x, m.y, m.symbol]), marked);
      // the stats are the CLI's --stats=json line
      const line = spawnSync(cli, ['-p', name, '-s', seed, '--stats=json', '-o', '/dev/null']).stderr;
      const cliStats = JSON.parse(utf8.decode(line).trim().split('\n').pop());
      for (const [k, v] of Object.entries(cave.stats)) assert.equal(String(v), String(cliStats[k]), k);
      cave.free();
      assert.throws(() => cave.format('ascii'), /freed/);
    });
  }
}

test('the determinism suite\'s pinned hashes of every preset at three seeds', () => {
  const hashes = pinned();
  let checked = 0;
  for (const name of names) {
    for (const seed of SEEDS) {
      const cave = cg.generate({ preset: name, seed });
      for (const f of ['ascii', 'json', 'ansi']) {
        const key = `format/${name}/s${seed}/${f}`;
        const want = hashes.get(key);
        assert.ok(want, 'no pinned case ' + key);
        assert.equal(digest(cave.formatBytes(f)), want, key);
        checked++;
      }
      cave.free();
    }
  }
  assert.equal(checked, names.length * SEEDS.length * 3);
});

test('settings: what --show-preset lists, each one an override that applies', () => {
  for (const name of names) {
    const shown = utf8.decode(run(['--show-preset', name]));
    const listed = shown.split('\n').filter((l) => /^#   \S+=/.test(l)).map((l) => l.slice(4));
    const got = cg.settings(cg.presetText(name));
    assert.deepEqual(got, listed, name);
    assert.ok(got.length > 0, name);
    // each setting, applied with the value it has, changes nothing
    const plain = cg.generate({ preset: name, seed: 5 });
    for (const setting of got) {
      const same = cg.generate({ preset: name, seed: 5, overrides: [setting] });
      assert.ok(same.ok, setting + ': ' + (same.diag && same.diag.message));
      assert.deepEqual(same.cells, plain.cells, setting);
      same.free();
    }
    plain.free();
  }
  assert.deepEqual(cg.settings('# nothing\n'), []);
});

test('sizes, overrides and text as the CLI takes them', () => {
  const cases = [
    [{ preset: 'type2', seed: 7, width: 1, height: 9 }, ['-p', 'type2', '-s', '7', '-W', '1', '-H', '9']],
    [{ preset: 'type4', seed: 7, width: 65, height: 3 }, ['-p', 'type4', '-s', '7', '-W', '65', '-H', '3']],
    [{ preset: 'maze', seed: 3, width: 131, height: 41 }, ['-p', 'maze', '-s', '3', '--size', '131x41']],
    [{ preset: 'classic', seed: 5, overrides: ['fill=48'] }, ['-p', 'classic', '-s', '5', '-D', 'fill=48']],
    [{ preset: 'level', seed: 9n, overrides: { 'poi.count': 5 } }, ['-p', 'level', '-s', '9', '-D', 'poi.count=5']],
  ];
  for (const [opts, args] of cases) {
    const cave = cg.generate(opts);
    assert.ok(cave.ok, args.join(' ') + ': ' + (cave.diag && cave.diag.message));
    assert.equal(cave.format('ascii'), utf8.decode(run([...args, '-o', '-'])), args.join(' '));
    assert.equal(cave.format('json'), utf8.decode(run([...args, '-f', 'json'])), args.join(' '));
    cave.free();
  }
  // preset text: as the CLI reads a file (no name recorded: the JSON differs there)
  const dir = mkdtempSync(join(tmpdir(), 'cavegen-js-'));
  try {
    const text = 'fill 52\ngenerations 4 r1=5 r2=-1\nkeep-largest';
    writeFileSync(join(dir, 'p.preset'), text);
    const cave = cg.generate({ text, seed: 11, width: 70, height: 30 });
    assert.ok(cave.ok, cave.diag && cave.diag.message);
    assert.equal(cave.format('ascii'),
      utf8.decode(run(['-p', join(dir, 'p.preset'), '-s', '11', '-W', '70', '-H', '30', '-o', '-'])));
  } finally {
    rmSync(dir, { recursive: true });
  }
});

test('errors: preset text at its line and column, overrides, runs, arguments', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cavegen-js-'));
  try {
    for (const text of ['fill 45\nsmooth 3 bogus=1\n', 'fill 45\n\n  generations x\n', 'fil 45']) {
      const bad = cg.generate({ text, seed: 1 });
      assert.equal(bad.ok, false);
      assert.equal(bad.diag.stage, 'parse');
      assert.equal(bad.diag.status, 'EPARSE');
      const file = join(dir, 'bad.preset');
      writeFileSync(file, text);
      const p = spawnSync(cli, ['-p', file, '-s', '1', '-o', '-']);
      assert.equal(p.status, 1);
      assert.equal(utf8.decode(p.stderr).trim(),
        `cavegen: ${file}:${bad.diag.line}:${bad.diag.column}: ${bad.diag.message}`);
      assert.ok(bad.diag.line >= 1 && bad.diag.column >= 1);
    }
  } finally {
    rmSync(dir, { recursive: true });
  }
  const o = cg.generate({ preset: 'classic', overrides: ['bogus=3'] });
  assert.equal(o.ok, false);
  assert.equal(o.diag.stage, 'overrides');
  assert.match(o.diag.message, /bogus/);
  const r = cg.generate({ text: 'fill 100\nentrance\n', seed: 1, width: 8, height: 8 });
  assert.equal(r.ok, false);
  assert.equal(r.diag.stage, 'run');
  assert.equal(r.diag.status, 'EFAIL');
  const u = cg.generate({ preset: 'clasic' });
  assert.equal(u.ok, false);
  assert.equal(u.diag.stage, 'preset');
  assert.throws(() => cg.generate({ seed: -1 }), RangeError);
  assert.throws(() => cg.generate({ seed: 2 ** 64 }), RangeError);
  assert.throws(() => cg.generate({ seed: '18446744073709551616' }), RangeError);
  assert.throws(() => cg.generate({ width: 0.5 }), RangeError);
  // a map larger than WebAssembly's memory fails before it runs, and the
  // module goes on working
  for (const [width, height] of [[100000, 100000], [1048576, 1048576], [1048576, 4096]]) {
    const big = cg.generate({ preset: 'type2', width, height });
    assert.equal(big.ok, false);
    assert.equal(big.diag.status, 'ENOMEM');
    // this message is the check made before the run (no timing asserted)
    assert.match(big.diag.message, new RegExp(`${width}x${height} map is too large`));
  }
  assert.equal(cg.generate({ preset: 'type2', width: 3, height: 3 }).ok, true);
  // the largest seed crosses intact
  const max = cg.generate({ preset: 'type1', seed: 18446744073709551615n });
  assert.equal(max.stats.seed, '18446744073709551615');
  max.free();
});

test('reach: the distances the CLI writes for --reach X,Y --moves M', () => {
  let compared = 0;
  for (const [name, seed, moves] of [['classic', '42', undefined], ['maze', '0', 30], ['level', '7', 12]]) {
    const cave = cg.generate({ preset: name, seed });
    const floor = [];
    for (let i = 0; i < cave.cells.length; i++) if (cave.cells[i] === 0) floor.push(i);
    for (const i of [floor[0], floor[floor.length >> 1], floor[floor.length - 1]]) {
      const x = i % cave.width;
      const y = Math.floor(i / cave.width);
      const reach = cave.reach(x, y, moves);
      const args = ['-p', name, '-s', seed, '--reach', `${x},${y}`, '-f', 'distances'];
      if (moves !== undefined) args.push('--moves', String(moves));
      const want = new Map();
      for (const l of utf8.decode(run(args)).trim().split('\n')) {
        const [a, b, d] = l.split(',');
        if (/^[0-9]+$/.test(a)) want.set(Number(b) * cave.width + Number(a), Number(d));
      }
      assert.equal(reach.reached, want.size);
      for (let j = 0; j < reach.distances.length; j++) {
        const d = want.has(j) ? want.get(j) : cg.UNREACHED_DISTANCE;
        assert.equal(reach.distances[j], d, `${name} ${x},${y}: cell ${j}`);
      }
      compared++;
    }
    const wall = cave.cells.indexOf(1);
    assert.equal(cave.reach(wall % cave.width, Math.floor(wall / cave.width)), null);
    assert.equal(cave.reach(cave.width, 0), null);
    cave.free();
  }
  assert.equal(compared, 9);
});
