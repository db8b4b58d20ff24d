// browser.test.mjs - the playground in Debian's chromium, headless, driven
// by puppeteer-core (no browser download): the page opened from file://
// and from a static file server, a preset error shown at its line, the
// canvas against the CLI's map, reach on a click, the URL's state, the
// batch strip, a download. Keeps a screenshot in web/test/artifacts/.
// CHROMIUM names the browser (default /usr/bin/chromium); without one the
// test is skipped, except under CI (CI=true), where it fails.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(web, '..');
const cli = process.env.CAVEGEN_CLI || join(root, 'build', 'cavegen');
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const artifacts = process.env.CAVEGEN_ARTIFACTS || join(web, 'test', 'artifacts');
const pageUrl = pathToFileURL(join(web, 'index.html')).href;
const WALL = [46, 40, 36];
const FLOOR = [226, 212, 178];
const have = existsSync(chromium);
if (!have && process.env.CI) throw new Error('no browser at ' + chromium + ' (CI needs one)');

let browser = null;
let tmp = null;

function cliText(args) { return execFileSync(cli, args, { encoding: 'latin1' }); }

before(async () => {
  if (!have) return;
  const puppeteer = (await import('puppeteer-core')).default;
  tmp = mkdtempSync(join(tmpdir(), 'cavegen-browser-'));
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    // root in CI has no user namespace sandbox; the page is our own
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--allow-file-access-from-files',
      '--user-data-dir=' + join(tmp, 'profile')],
  });
});

after(async () => {
  if (browser) await browser.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function open(url) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.setViewport({ width: 1400, height: 1000 });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', { timeout: 20000 });
  return { page, errors };
}

async function setField(page, selector, value) {
  await page.$eval(selector, (el, v) => { el.value = v; el.dispatchEvent(new Event('input', { bubbles: true })); }, value);
  await settle(page);
}

// Waits for the generation scheduled on the next animation frame.
async function settle(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

// The colour of every cell's centre on the canvas, as [r, g, b] rows.
async function canvasCells(page) {
  return page.evaluate(() => {
    const cave = window.playground.cave;
    const c = document.getElementById('map');
    const scale = c.width / cave.width;
    const data = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const out = [];
    for (let y = 0; y < cave.height; y++) {
      for (let x = 0; x < cave.width; x++) {
        const i = ((Math.floor(y * scale + scale / 2) * c.width) + Math.floor(x * scale + scale / 2)) * 4;
        out.push([data[i], data[i + 1], data[i + 2]]);
      }
    }
    return { width: cave.width, height: cave.height, cells: out };
  });
}

function assertCanvasIsMap(got, ascii) {
  const rows = ascii.split('\n').filter((r) => r.length);
  assert.equal(got.height, rows.length);
  assert.equal(got.width, rows[0].length);
  let checked = 0;
  rows.forEach((row, y) => [...row].forEach((ch, x) => {
    const px = got.cells[y * got.width + x];
    if (ch === '#') assert.deepEqual(px, WALL, `wall at ${x},${y}`);
    else if (ch === '.') assert.deepEqual(px, FLOOR, `floor at ${x},${y}`);
    else assert.notDeepEqual(px, FLOOR, `marker ${ch} at ${x},${y}`);
    checked++;
  }));
  return checked;
}

test('the playground in chromium: errors at their line, the CLI\'s map, reach, URL, batch', { skip: !have && 'no chromium at ' + chromium }, async () => {
  const { page, errors } = await open(pageUrl); // file://: the harder case
  await page.select('#preset', 'classic');
  await setField(page, '#seed', '42');
  assertCanvasIsMap(await canvasCells(page), cliText(['-p', 'classic', '-s', '42', '-o', '-']));

  // a preset with an error, typed: shown at its line and column as the CLI says
  const bad = 'fill 45\nsmooth 3 bogus=1\nconnect\n';
  await page.click('#text', { clickCount: 3 });
  await page.$eval('#text', (el) => { el.value = ''; });
  await page.type('#text', bad);
  await settle(page);
  const shown = await page.$eval('#error', (el) => ({ hidden: el.hidden, text: el.textContent }));
  assert.equal(shown.hidden, false);
  const file = join(tmp, 'bad.preset');
  writeFileSync(file, bad);
  let cliErr = '';
  try { execFileSync(cli, ['-p', file, '-s', '42', '-o', '-'], { stdio: 'pipe' }); } catch (e) { cliErr = e.stderr.toString(); }
  const m = cliErr.match(/bad\.preset:(\d+):(\d+): (.*)/);
  assert.ok(m, cliErr);
  assert.equal(shown.text, `line ${m[1]}, column ${m[2]}: ${m[3]}`);
  assert.equal(await page.$eval('#gutter .err', (el) => el.textContent), m[1]);
  assert.equal(await page.$eval('#map', (el) => el.classList.contains('stale')), true);
  assert.equal(await page.$$eval('#batch figure', (f) => f.length), 0);
  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, 'playground-error.png') });

  // fixed: the error goes, the map is the CLI's again
  await page.$eval('#text', (el) => { el.value = ''; });
  await page.type('#text', bad.replace(' bogus=1', ''));
  await settle(page);
  assert.equal(await page.$eval('#error', (el) => el.hidden), true);
  assert.equal(await page.$$eval('#gutter .err', (els) => els.length), 0);
  assert.equal(await page.$eval('#map', (el) => el.classList.contains('stale')), false);
  writeFileSync(file, bad.replace(' bogus=1', ''));
  assertCanvasIsMap(await canvasCells(page), cliText(['-p', file, '-s', '42', '-o', '-']));

  // back to a built-in preset at 160x100, with an override
  await page.select('#preset', 'level');
  await setField(page, '#width', '160');
  await setField(page, '#height', '100');
  // the preset's settings are offered; a click puts one in the overrides
  const offered = await page.$$eval('#settings button', (b) => b.map((e) => e.textContent));
  const listed = cliText(['--show-preset', 'level']).split('\n').filter((l) => /^#   \S+=/.test(l)).map((l) => l.slice(4));
  assert.deepEqual(offered, listed);
  const poi = offered.find((s) => s.startsWith('poi.count='));
  assert.ok(poi, offered.join(' '));
  await page.evaluate((text) => [...document.querySelectorAll('#settings button')].find((b) => b.textContent === text).click(), poi);
  assert.equal(await page.$eval('#overrides', (el) => el.value), poi);
  await setField(page, '#overrides', 'poi.count=5');
  const args = ['-p', 'level', '-s', '42', '-W', '160', '-H', '100', '-D', 'poi.count=5'];
  const ascii = cliText([...args, '-o', '-']);
  assert.equal(assertCanvasIsMap(await canvasCells(page), ascii), 160 * 100);
  // the generation time is measured and shown (reported, never asserted:
  // no timing thresholds in tests - docs/web.md gives the figures)
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    await page.click('#next-seed');
    await settle(page);
    best = Math.min(best, Number(await page.$eval('#timing', (el) => el.dataset.ms)));
  }
  assert.match(await page.$eval('#timing', (el) => el.textContent), /160x100 generated in [0-9.]+ ms/);
  assert.ok(Number.isFinite(best) && best >= 0, 'no time shown: ' + best);
  console.log('# 160x100 generated in ' + best + ' ms (fastest of 5)');
  await setField(page, '#seed', '42');

  // click a floor cell: the reach the CLI computes from there
  const rows = ascii.split('\n');
  const [fx, fy] = (() => {
    for (let y = 50; y < 100; y++) for (let x = 80; x < 160; x++) if (rows[y][x] === '.') return [x, y];
    throw new Error('no floor');
  })();
  const box = await (await page.$('#map')).boundingBox();
  const scale = box.width / 160;
  await page.mouse.click(box.x + (fx + 0.5) * scale, box.y + (fy + 0.5) * scale);
  const want = (m2) => cliText([...args, '--reach', `${fx},${fy}`, ...(m2 === undefined ? [] : ['--moves', String(m2)]), '-f', 'distances'])
    .trim().split('\n').filter((l) => /^[0-9]/.test(l)).length;
  assert.equal(await page.$eval('#reach-info', (el) => el.textContent), `reach from ${fx},${fy}: ${want()} cells`);
  await setField(page, '#moves', '12');
  await page.$eval('#moves', (el) => el.dispatchEvent(new Event('input')));
  assert.equal(await page.$eval('#reach-info', (el) => el.textContent), `reach from ${fx},${fy}: ${want(12)} cells`);
  const px = (await canvasCells(page)).cells[fy * 160 + fx];
  assert.deepEqual(px, [253, 231, 37], 'the start is the ramp\'s first colour');

  // the batch strip: the next seeds, each a thumbnail
  assert.deepEqual(await page.$$eval('#batch figure', (f) => f.map((e) => e.dataset.seed)),
    ['43', '44', '45', '46', '47', '48', '49', '50']);

  // a download: the ASCII map's bytes
  const dl = join(tmp, 'downloads');
  mkdirSync(dl);
  const cdp = await page.createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dl });
  await page.click('#dl-ascii');
  for (let i = 0; i < 50 && !readdirSync(dl).some((f) => f.endsWith('.txt')); i++) await sleep(100);
  assert.equal(readFileSync(join(dl, 'cave-level-42.txt'), 'latin1'), ascii);

  mkdirSync(artifacts, { recursive: true });
  await page.screenshot({ path: join(artifacts, 'playground.png'), fullPage: true });

  // the state is in the URL: a new page from it shows the same cave
  const url = page.url();
  assert.match(url, /#.*s=42/);
  const again = await open(url);
  assert.equal(await again.page.$eval('#overrides', (el) => el.value), 'poi.count=5');
  assert.equal(await again.page.$eval('#reach-info', (el) => el.textContent), `reach from ${fx},${fy}: ${want(12)} cells`);
  assert.deepEqual((await canvasCells(again.page)).cells, (await canvasCells(page)).cells);
  assert.deepEqual(again.errors, []);
  assert.deepEqual(errors, []);
});

test('the playground served over http (python3 -m http.server)', { skip: !have && 'no chromium at ' + chromium }, async () => {
  const server = spawn('python3', ['-m', 'http.server', '--bind', '127.0.0.1', '0'], { cwd: web, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const port = await new Promise((resolve, reject) => {
      let out = '';
      const grab = (d) => { out += d; const m = out.match(/port (\d+)/); if (m) resolve(Number(m[1])); };
      server.stdout.on('data', grab);
      server.stderr.on('data', grab);
      server.on('exit', () => reject(new Error('http.server exited: ' + out)));
    });
    const { page, errors } = await open(`http://127.0.0.1:${port}/index.html#p=maze&s=7`);
    assertCanvasIsMap(await canvasCells(page), cliText(['-p', 'maze', '-s', '7', '-o', '-']));
    assert.deepEqual(errors, []);
  } finally {
    server.kill();
  }
});
