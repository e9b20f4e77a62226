import { existsSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { createTestApp, type TestApp } from '../support/app';

/**
 * The playground and CORS in a real browser: Debian's chromium (never a downloaded one) with every request to a host
 * other than the servers' refused, so that the playground is shown to work with no network at all.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SCREENSHOTS = path.resolve(__dirname, '../../test-results');
const KEY = 'browser-test-key';

/** A page of a browser app on another origin: it calls the API (its URL in `?api=`) with a key, shows the outcome. */
const APP_PAGE = `<!doctype html><html><body><script>
fetch(new URLSearchParams(location.search).get('api'), {
  method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer ${KEY}' },
  body: JSON.stringify({ query: '{ serverInfo { database { kind } } }' }),
})
  .then((response) => response.json())
  .then((body) => { document.body.dataset.outcome = JSON.stringify(body); })
  .catch((error) => { document.body.dataset.outcome = 'refused: ' + error.message; });
</script></body></html>`;

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

/** Selects all of a CodeMirror editor's text and types `text` in its place. */
async function replaceEditorText(page: Page, editorSelector: string, text: string): Promise<void> {
  await page.click(`${editorSelector} .CodeMirror`);
  await page.keyboard.down('Control');
  await page.keyboard.press('KeyA');
  await page.keyboard.up('Control');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(text);
}

const textOf = (page: Page, selector: string): Promise<string> =>
  page.$eval(selector, (element: any) => element.innerText.replace(/\u00a0/g, ' '));

/** Waits until the element `selector` shows `text`. (The test compiles without the DOM's types: `any` in the page.) */
async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    (selector: string, text: string) =>
      (globalThis as any).document.querySelector(selector)?.textContent?.includes(text),
    { timeout: 20_000 },
    selector,
    text,
  );
}

describe('in chromium', () => {
  let app: TestApp;
  let apiUrl: string;
  const appServers = [0, 1].map(() => http.createServer((_req, res) => res.end(APP_PAGE)));
  let listedOrigin: string;
  let otherOrigin: string;
  let browser: Browser;
  let page: Page;
  /** Requests the interception refused (to another host than the servers'). */
  const refused: string[] = [];
  /** Uncaught errors of the pages. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    [listedOrigin, otherOrigin] = await Promise.all(appServers.map(listen));
    app = await createTestApp({ config: { playground: true, apiKeys: [KEY], corsOrigins: [listedOrigin] } });
    apiUrl = await app.server.listen(0, '127.0.0.1');
    const served = new Set([new URL(apiUrl).host, new URL(listedOrigin).host, new URL(otherOrigin).host]);
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      // The sandbox needs user namespaces, which containers and CI runners often lack.
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = new URL(request.url());
      if ((url.protocol === 'http:' && served.has(url.host)) || url.protocol === 'data:') void request.continue();
      else {
        refused.push(request.url());
        void request.abort('internetdisconnected');
      }
    });
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    for (const server of appServers) server.close();
  });

  it('the playground runs a query typed in its editor, with the key typed in its headers editor', async () => {
    await page.goto(apiUrl, { waitUntil: 'networkidle0' });
    const queryEditor = 'section[aria-label="Query Editor"]';
    const headersEditor = '.graphiql-editor-tool .graphiql-editor:not(.hidden)';
    await page.waitForSelector(`${queryEditor} .CodeMirror`).catch(async (error: unknown) => {
      throw new Error(`${String(error)}; page errors: ${pageErrors.join('; ')}; body: ${await textOf(page, 'body')}`);
    });
    // It opens with the example operation and, as a key is required, the headers editor asking for one.
    expect(await textOf(page, queryEditor)).toContain('query RecentSessions');
    expect(await textOf(page, headersEditor)).toContain('Bearer <your API key>');

    await replaceEditorText(page, headersEditor, `{"Authorization": "Bearer ${KEY}"`);
    await replaceEditorText(page, queryEditor, '{ serverInfo { database { kind');
    // GraphiQL takes the operation name it sends from the editor after a debounce: pressed at once, run would send the
    // example's name with the new text. A person pauses longer than that.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await page.click('.graphiql-execute-button');
    await waitForText(page, 'section[aria-label="Result Window"]', '"EMBEDDED"').catch(async (error: unknown) => {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, 'playground-failed.png') });
      throw error;
    });
    expect(JSON.parse(await textOf(page, 'section[aria-label="Result Window"]'))).toEqual({
      data: { serverInfo: { database: { kind: 'EMBEDDED' } } },
    });

    // The schema (fetched again with the key) in the documentation explorer.
    await page.click('button[aria-label="Re-fetch GraphQL schema"]');
    await page.click('button[aria-label="Show Documentation Explorer"]');
    await waitForText(page, 'section[aria-label="Documentation Explorer"]', 'ServerInfo');
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SCREENSHOTS, 'playground.png') });
    expect(refused).toEqual([]);
  });

  it.each([
    ['a listed origin is answered', () => listedOrigin, '{"data":{"serverInfo":{"database":{"kind":"EMBEDDED"}}}}'],
    ['another origin is refused by the browser', () => otherOrigin, 'refused: Failed to fetch'],
  ])('CORS: %s', async (_name, origin, outcome) => {
    await page.goto(`${origin()}/?api=${encodeURIComponent(apiUrl)}`);
    await page.waitForSelector('body[data-outcome]', { timeout: 20_000 });
    expect(await page.$eval('body', (body: any) => body.dataset.outcome)).toBe(outcome);
  });
});
