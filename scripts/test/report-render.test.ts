// The HTML outputs render the run's results in a real browser: a small conformance run
// (`--area crud`, embedded reference server) writes its report; the report directory is
// served over http on 127.0.0.1 (Allure 3's app fetches its data, so file:// will not do)
// and opened in headless Chromium. The Allure app must show the run's counts and a case by
// its id and title; the matrix page its summary counts and a section row. Neither page may
// reach beyond 127.0.0.1. Without Chromium the rendering checks fail, saying how to install
// it (.ci/run installs it).
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaseDef } from '../../harness/src/spec.ts';
import type { Summary } from '../../reports/finish.ts';
import { readCases } from '../../reports/outcomes.ts';
import { type CliResult, cleanupTempDirs, cli, readSummary, tail, tempDir } from './helpers.ts';

const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
];
const CHROMIUM = CANDIDATES.find((p): p is string => !!p && existsSync(p));
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.css': 'text/css',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain',
};

/** A static file server for the report directory, on 127.0.0.1 only. */
async function serve(root: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(root + sep) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    try {
      const body = readFileSync(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Expands every section of the Allure tree: clicks closed arrows until none is left. */
async function expandTree(page: Page): Promise<void> {
  const closed = page.locator('[data-testid="tree-arrow"]:not(:has(svg[class*="--opened"]))');
  for (let i = 0; i < 500 && (await closed.count()) > 0; i++) await closed.first().click();
}

describe('the HTML reports render the run', () => {
  const dir = tempDir('render');
  let run: CliResult;
  let summary: Summary;
  let cases: CaseDef[];
  let site: Awaited<ReturnType<typeof serve>> | undefined;
  let browser: BrowserContext | undefined;
  const outside: string[] = [];

  beforeAll(async () => {
    run = await cli(['run', '--area', 'crud', '--report', dir]);
    if (run.code !== 0) return;
    summary = readSummary(dir);
    cases = readCases(join(dir, 'cases.jsonl'));
    if (!CHROMIUM) return;
    site = await serve(dir);
    browser = await chromium.launchPersistentContext(tempDir('chromium-profile'), {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
    });
    // the report must not need anything beyond its own files
    await browser.route('**/*', (route) => {
      const u = new URL(route.request().url());
      if (u.hostname === '127.0.0.1') return route.continue();
      outside.push(u.href);
      return route.abort();
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await site?.close();
    cleanupTempDirs();
  });

  // no browser fails the rendering checks (a check that turns itself off checks nothing)
  const needChromium = () => {
    if (CHROMIUM) return;
    throw new Error(
      `Chromium not found (tried ${CANDIDATES.filter(Boolean).join(', ')}): install it (.ci/run does: sudo apt-get install chromium), or set CHROMIUM_PATH to a Chromium or Chrome binary`,
    );
  };

  it('the run passes and writes both pages', () => {
    expect(run.code, tail(run)).toBe(0);
    expect(existsSync(join(dir, 'html', 'index.html'))).toBe(true);
    expect(existsSync(join(dir, 'matrix.html'))).toBe(true);
    expect(summary.executed).toBeGreaterThan(10);
    expect(readFileSync(join(dir, 'html', 'index.html'), 'utf8')).not.toContain('googletagmanager');
  });

  it('the Allure report shows the counts of the run and each case by id and title', async () => {
    needChromium();
    const page = await browser!.newPage();
    await page.goto(`${site!.url}/html/index.html`);
    await expect
      .poll(
        () =>
          page
            .locator('[data-testid="report-title"]')
            .textContent()
            .catch(() => ''),
        { timeout: 30_000 },
      )
      .toContain('orch conformance');
    const value = (testid: string) =>
      page
        .locator(`[data-testid="${testid}"] [data-testid="metadata-value"]`)
        .textContent({ timeout: 15_000 });
    expect(Number(await value('metadata-item-total')), 'Total in the Allure header').toBe(summary.executed);
    expect(Number(await value('metadata-item-passed')), 'Passed in the Allure header').toBe(summary.passed);

    // the tree, grouped by document > section > place, lists every case that ran
    await expandTree(page);
    const leaves = await page.locator('[data-testid="tree-leaf-title"]').allTextContents();
    expect(leaves.length, 'one leaf per case run or skipped').toBe(summary.executed + summary.skipped);
    for (const c of cases) expect(leaves, `leaf for ${c.id}`).toContain(`${c.id}: ${c.title}`);
    expect(await page.locator('[data-testid="tree-leaf-status-passed"]').count()).toBe(summary.passed);
    expect(await page.locator('[data-testid="tree-section-title"]').allTextContents()).toContain(
      'doc1 doc1-resource-api',
    );

    await page.close();

    // search narrows the tree (Allure matches loosely: the case and a few like it)
    const one = cases.find((c) => c.id === 'crud/get/returns-object') ?? cases[0]!;
    const search = await browser!.newPage();
    await search.goto(`${site!.url}/html/index.html`);
    await search.locator('[data-testid="search-input"]').fill(one.id);
    let found: string[] = [];
    await expect
      .poll(async () => {
        await expandTree(search);
        found = await search.locator('[data-testid="tree-leaf-title"]').allTextContents();
        return found.includes(`${one.id}: ${one.title}`) && found.length < leaves.length;
      })
      .toBe(true);
    expect(found.length, found.join('\n')).toBeGreaterThan(0);
    await search.close();
    expect(outside, 'requests beyond 127.0.0.1').toEqual([]);
  }, 120_000);

  it('the matrix page shows the summary counts and the sections with their cases', async () => {
    needChromium();
    const page = await browser!.newPage();
    await page.goto(`${site!.url}/matrix.html`);
    const text = (sel: string) => page.locator(sel).textContent();
    expect(Number(await text('#passed'))).toBe(summary.passed);
    expect(Number(await text('#failed'))).toBe(summary.failed);
    expect(Number(await text('#skipped'))).toBe(summary.skipped);
    const sections = new Set(cases.map((c) => `${c.doc} ${c.section}`));
    expect(Number(await text('#sections-covered'))).toBe(sections.size);
    expect(await text('#run')).toContain('areas crud');

    const ops = cases.filter((c) => c.doc === 1 && c.section === 'Operations');
    expect(ops.length, 'crud cases in doc1 § Operations').toBeGreaterThan(0);
    const row = page.locator('#doc1 tr[data-section="Operations"]');
    expect(await row.locator('td.n').textContent()).toBe(String(ops.length));
    expect(await row.locator('td.result').textContent()).toBe(`${ops.length}/${ops.length} passed`);
    expect(await row.getAttribute('class')).toBe('passing');
    const items = await row.locator('li code').allTextContents();
    expect(items.sort()).toEqual(ops.map((c) => c.id).sort());
    // a section no crud case covers shows as untested
    expect(await page.locator('#doc2 tr.untested').count()).toBeGreaterThan(0);
    await page.close();
    expect(outside, 'requests beyond 127.0.0.1').toEqual([]);
  }, 60_000);
});
