// Headless Debian Chromium through playwright-core (never a downloaded browser).
import { chromium } from 'playwright-core';

export const CHROME = process.env.CHROME_BIN || '/usr/bin/chromium';
// Without the background-networking flags Chromium keeps trying to reach the closed network.
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export function launchChromium() {
  return chromium.launch({ executablePath: CHROME, headless: true, args: ARGS, timeout: 60_000 });
}

/** Opens `url`, collecting console messages and page errors into `logs` (for failure messages). */
export async function openPage(browser, url, logs = []) {
  const page = await browser.newPage();
  page.on('console', (m) => logs.push(`console.${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => logs.push(`pageerror: ${e.stack || e}`));
  page.on('requestfailed', (r) => logs.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  await page.goto(url);
  return page;
}
