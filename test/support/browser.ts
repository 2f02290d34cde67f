import { chromium, type Browser } from 'playwright-core';
import { DEADLINE_MS } from './wait.js';

/** Debian's Chromium; CHROMIUM_PATH points elsewhere on other systems. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** This machine has no outside network; these flags stop Chromium from trying to reach it. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * A headless Chromium for the browser tests. Its pages wait up to DEADLINE_MS for an element,
 * a navigation or an action, not Playwright's 30 s: the machine may be busy with other work.
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    timeout: DEADLINE_MS,
  });
  browser.on('context', (context) => {
    context.setDefaultTimeout(DEADLINE_MS);
    context.setDefaultNavigationTimeout(DEADLINE_MS);
  });
  return browser;
}
