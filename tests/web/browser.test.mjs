// The WebAssembly build and the decoder page in Chromium (Debian's, driven
// over the DevTools protocol by puppeteer-core): the shared vectors through
// the browser entry, then the page of build/web fed every decode vector it
// can take, its table read back and compared with the vectors' canonical
// JSON; the address reproducing the table, and the page opening with the
// server gone. A screenshot is left in build/web-test/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { serve } from './serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const vectorDir = join(root, 'tests', 'vectors');
const artifacts = join(root, 'build', 'web-test');
// The Node package (the native addon, or the WebAssembly build where none
// fits): the core's error messages, computed outside the browser.
const sfc = createRequire(import.meta.url)(join(root, 'node'));

const vectorFiles = readdirSync(vectorDir)
  .filter((f) => f.endsWith('.json') && f !== 'schema.json')
  .sort();
const vectors = (file) => JSON.parse(readFileSync(join(vectorDir, file), 'utf8'));

let server;
let browser;
let profile;

before(async () => {
  server = await serve(
    {
      '/': join(root, 'build', 'web'),
      '/vectors-page/': join(here, 'vectors'),
      '/fixtures/': join(root, 'node', 'test', 'fixtures'),
      '/vectors/': vectorDir,
    },
    { '/vectors/index.json': ['application/json', JSON.stringify(vectorFiles)] },
  );
  profile = mkdtempSync(join(tmpdir(), 'snowflake-c-chromium-'));
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    userDataDir: profile,
    // Chromium's sandbox refuses to run as root.
    args: [
      ...(process.getuid() === 0 ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--lang=en-US',
    ],
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function newPage() {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error));
  page.errors = errors;
  return page;
}

test('the shared vectors through the browser entry', async (t) => {
  const page = await newPage();
  await page.goto(`${server.origin}/vectors-page/`);
  await page.waitForFunction(() => window.results !== undefined, { timeout: 120_000 });
  const results = await page.evaluate(() => window.results);
  assert.deepEqual(page.errors, []);
  const failed = results.filter((r) => r.status === 'fail');
  assert.deepEqual(failed, [], failed.map((r) => `${r.name}: ${r.error}`).join('\n\n'));
  // Every case of every file ran (the claims by the rule of a build with no
  // host-wide claim), beside each file's 'holds cases' and the runner's
  // directory test; none was skipped.
  const cases = vectorFiles.reduce((n, f) => n + vectors(f).length + 1, 1);
  const ofVectors = results.filter((r) => r.name.includes('.json > ') || /directory/.test(r.name));
  assert.equal(ofVectors.length, cases);
  const skipped = results.filter((r) => r.status === 'skip');
  assert.deepEqual(
    skipped.map((r) => r.name),
    [],
    'no case skipped',
  );
  assert.ok(results.length > cases, 'the wasm cases ran too');
  const passed = results.filter((r) => r.status === 'pass').length;
  t.diagnostic(`${passed} passed`);
  await page.close();
});

/** The table's rows as { status, kind, cells: { key: text } }. */
const readTable = (page) =>
  page.$$eval('#results tbody tr', (rows) =>
    rows.map((row) => {
      const cells = {};
      for (const td of row.querySelectorAll('td[data-key]')) cells[td.dataset.key] = td.textContent;
      const error = row.querySelector('td[data-key=error]');
      return { status: row.dataset.status, kind: error?.dataset.kind, cells };
    }),
  );

/** Types into a field as a user would, after emptying it. */
async function typeInto(page, selector, text) {
  await page.$eval(selector, (el) => {
    el.value = '';
  });
  await page.type(selector, text);
}

/** The wall-clock digits of time_ms in a zone `offsetMin` east of UTC: 'HH:MM:SS.mmm'. */
function clockAt(timeMs, offsetMin) {
  return new Date(timeMs + offsetMin * 60_000).toISOString().slice(11, 23);
}

const ZONE = 'Asia/Kolkata'; // UTC+05:30 all year, no daylight saving
const ZONE_OFFSET_MIN = 330;

/** A decode case the page can take: one token, pasted (no blank, comma or NUL). */
const pasteable = (c) => /^[^\s,\0]+$/.test(c.id);

test('the decoder page decodes every decode vector it can take', async () => {
  const page = await newPage();
  await page.emulateTimezone(ZONE);
  await page.setViewport({ width: 1280, height: 900 });
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('body[data-ready]');

  // The layout select: the core's preset table, then a custom layout.
  const options = await page.$$eval('#layout option', (os) => os.map((o) => o.value));
  assert.deepEqual(options, [...sfc.presets().map((p) => p.name), 'custom']);

  const cases = vectors('decode.json');
  const groups = new Map();
  for (const c of cases.filter(pasteable)) {
    const key = JSON.stringify(c.layout);
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  assert.ok(cases.filter(pasteable).length >= 40, 'most decode vectors are pasted');

  await page.select('#encoding', 'dec');
  let checked = 0;
  for (const [key, group] of groups) {
    const layout = JSON.parse(key);
    if (layout.preset !== undefined) {
      await page.select('#layout', layout.preset);
    } else {
      await page.select('#layout', 'custom');
      await typeInto(page, '#spec', layout.spec);
      await typeInto(page, '#epoch', layout.epoch);
    }
    // Separated by lines, commas and blanks in turn.
    const text = group.map((c, i) => c.id + ['\n', ', ', ' '][i % 3]).join('');
    await typeInto(page, '#ids', text);
    const rows = await readTable(page);
    assert.equal(rows.length, group.length, `${key}: one row per ID`);
    const options =
      layout.preset !== undefined
        ? { preset: layout.preset }
        : { layout: layout.spec, epoch: layout.epoch };
    group.forEach((c, i) => {
      const row = rows[i];
      const where = `${key} ${c.id}: ${c.description}`;
      assert.equal(row.cells.input, c.id, where);
      if (c.error !== undefined) {
        assert.equal(row.status, 'error', where);
        assert.equal(row.kind, c.error, where);
        let message;
        try {
          sfc.decode(c.id, options);
        } catch (error) {
          message = error.message;
        }
        assert.equal(row.cells.error, message, `${where}: the core's message`);
      } else {
        const want = JSON.parse(c.json);
        assert.equal(row.status, 'ok', `${where}: ${row.cells.error}`);
        assert.equal(row.cells.id, want.id, where);
        assert.equal(row.cells.time, want.time, where);
        for (const [name, value] of Object.entries(c.fields)) {
          assert.equal(row.cells[name], value, `${where}: ${name}`);
        }
        const fieldKeys = Object.keys(row.cells).filter(
          (k) => !['input', 'encoding', 'id', 'time', 'local'].includes(k),
        );
        assert.deepEqual(fieldKeys.sort(), Object.keys(c.fields).sort(), `${where}: every field`);
        assert.ok(
          row.cells.local.includes(clockAt(want.time_ms, ZONE_OFFSET_MIN)) &&
            /GMT\+5:30/.test(row.cells.local),
          `${where}: local time ${row.cells.local}`,
        );
      }
      checked += 1;
    });
    if (layout.preset === 'twitter') {
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: join(artifacts, 'decoder.png'), fullPage: true });
    }
  }
  assert.equal(checked, cases.filter(pasteable).length);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('auto: decimal digits, and each string form at its width where only it reads', async () => {
  const page = await newPage();
  const id = '175928847299117063';
  const hex = sfc.formatId(id, 'hex');
  // Base58's alphabet is base62's without 0, O, I and l: a base62 form with
  // one of them reads only as base62; a base58 form reads as both.
  const base62 = sfc.formatId(id, 'base62');
  assert.match(base62, /[0OIl]/);
  const base58 = sfc.formatId(id, 'base58');
  // Crockford's base32 has no U, base36 has: a base36 form with a U reads
  // only as base36, one without it reads as both.
  let withU = 1n;
  while (!sfc.formatId(withU, 'base36').toUpperCase().includes('U')) withU += 1n;
  const base36 = sfc.formatId(id, 'base36');
  assert.ok(!base36.toUpperCase().includes('U'));
  const tokens = [id, hex, base62, sfc.formatId(withU, 'base36'), base58, base36, 'x!'];
  const params = new URLSearchParams({ preset: 'discord', ids: tokens.join(' ') });
  await page.goto(`${server.origin}/#${params}`);
  await page.waitForSelector('body[data-ready]');
  const rows = await readTable(page);
  assert.deepEqual(
    rows.slice(0, 4).map((r) => [r.cells.encoding, r.cells.id]),
    [
      ['dec', id],
      ['hex', id],
      ['base62', id],
      ['base36', String(withU)],
    ],
  );
  assert.match(rows[4].cells.error, /reads as base58 or base62: choose its encoding/);
  assert.match(rows[5].cells.error, /reads as base32 or base36: choose its encoding/);
  assert.match(rows[6].cells.error, /is not decimal, nor a fixed-width/);
  assert.deepEqual(
    rows.slice(4).map((r) => r.status),
    ['error', 'error', 'error'],
  );
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a custom layout: the core refuses a bad spec with its message', async () => {
  const page = await newPage();
  const params = new URLSearchParams({
    spec: 'time:41@1ms,worker:30,seq:12',
    epoch: '0',
    ids: '1',
  });
  await page.goto(`${server.origin}/#${params}`);
  await page.waitForSelector('body[data-ready]');
  let message;
  try {
    sfc.Layout.parse('time:41@1ms,worker:30,seq:12', 0);
  } catch (error) {
    message = error.message;
  }
  assert.ok(message);
  assert.equal(await page.$eval('#summary', (el) => el.textContent), `Layout: ${message}`);
  await page.close();
});

test('a shared address shows the same table, and the page opens offline', async () => {
  const page = await newPage();
  await page.goto(`${server.origin}/`);
  await page.waitForSelector('body[data-ready]');
  // Keyboard only: the IDs, then Tab to the layout select and a key.
  await page.focus('#ids');
  await page.keyboard.type('1050118621198921728, 175928847299117063');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'layout');
  await page.select('#layout', 'discord');
  const table = () => page.$eval('#results', (t) => t.outerHTML);
  const shown = await table();
  const address = page.url();
  assert.match(address, /#preset=discord&ids=1050118621198921728/);

  const second = await newPage();
  await second.goto(address);
  await second.waitForSelector('body[data-ready]');
  assert.equal(await second.$eval('#results', (t) => t.outerHTML), shown);

  // The service worker has cached every file: with the server gone, the
  // page, its modules and the .wasm still load and decode.
  await second.waitForSelector('body[data-offline=ready]', { timeout: 30_000 });
  await server.close();
  server = undefined;
  await second.reload();
  await second.waitForSelector('body[data-ready]');
  assert.equal(await second.$eval('#results', (t) => t.outerHTML), shown);
  assert.deepEqual([...page.errors, ...second.errors], []);
});

test('python3 -m http.server serves the page as built', async (t) => {
  const port = await new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolve(free));
    });
  });
  const python = spawn(
    'python3',
    ['-m', 'http.server', '--bind', '127.0.0.1', '-d', join(root, 'build', 'web'), String(port)],
    { stdio: 'ignore' },
  );
  t.after(() => python.kill());
  const page = await newPage();
  const c = vectors('decode.json')[0];
  const address = `http://127.0.0.1:${port}/#preset=${c.layout.preset}&ids=${c.id}`;
  for (let i = 0; ; i++) {
    try {
      await page.goto(address);
      break;
    } catch (error) {
      if (i > 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await page.waitForSelector('body[data-ready]');
  const [row] = await readTable(page);
  assert.equal(row.cells.time, JSON.parse(c.json).time);
  assert.deepEqual(page.errors, []);
  await page.close();
});
