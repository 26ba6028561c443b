// The site's search in a real browser: search.html served from a folder
// below the server's root (as a project site is), queried for words that
// only the guides, a reference, an integration's reference or the CLI's
// manual hold; each query must find its page, and every result must link
// inside the site.
//   node scripts/site.d/search.mjs SITE
// Chromium (CHROMIUM, default /usr/bin/chromium) driven by tests/web's
// puppeteer-core; the server is tests/web's.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '../..');
const require = createRequire(resolve(root, 'tests/web/package.json'));
const puppeteer = require('puppeteer-core');
const { serve } = await import(pathToFileURL(resolve(root, 'tests/web/serve.mjs')));

const site = resolve(process.argv[2] ?? 'build/site');
// A word and a page its results must include.
const QUERIES = [
  ['rollback', 'docs/README.html'],
  ['SnowflakeIdModule', 'java-integrations/jackson2/'],
  ['reviver', 'node/functions/snowflake-c_json.reviver.html'],
  ['sfc_lease_due', 'c/'],
  ['completions', 'cli/'],
];

const { origin, close } = await serve({ '/docs-site/': site });
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const problems = [];
try {
  const page = await browser.newPage();
  for (const [word, expected] of QUERIES) {
    await page.goto(`${origin}/docs-site/search.html?q=${encodeURIComponent(word)}`);
    // What search.html shows (its first results), then every result of the
    // index, through Pagefind's own API as the page loads it.
    const shown = await page
      .waitForSelector('.pagefind-ui__result-link', { timeout: 20000 })
      .then(() => page.$$eval('.pagefind-ui__result-link', (as) => as.length))
      .catch(() => 0);
    const urls = await page.evaluate(async (q) => {
      const pagefind = await import(new URL('pagefind/pagefind.js', location.href).href);
      await pagefind.options({ baseUrl: new URL('.', location.href).pathname });
      const found = await pagefind.search(q);
      return Promise.all(found.results.map(async (r) => (await r.data()).url));
    }, word);
    const paths = urls.map((u) => new URL(u, origin).pathname);
    if (!shown) problems.push(`'${word}': search.html shows no result`);
    if (!paths.some((p) => p.startsWith(`/docs-site/${expected}`)))
      problems.push(`'${word}': no result in ${expected} (${paths.join(', ')})`);
    const outside = paths.filter((p) => !p.startsWith('/docs-site/'));
    if (outside.length) problems.push(`'${word}': results outside the site: ${outside.join(', ')}`);
    console.log(`search '${word}': ${paths.length} pages, ${shown} shown first`);
  }
} finally {
  await browser.close();
  await close();
}
if (problems.length) {
  for (const p of problems) console.error(`search check: ${p}`);
  process.exit(1);
}
console.log('search check: clean');
