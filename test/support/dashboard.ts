import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from './browser.js';

// What the dashboard's browser tests share: a browser, signing in on the real sign-in page,
// axe-core's check, and focus questions asked in the page (the tests' tsconfig has no DOM).

const AXE = readFileSync('node_modules/axe-core/axe.min.js', 'utf8');

export interface DashboardBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
}

/**
 * Chromium with one page. bypassCSP lets the tests inject axe-core; the CSP
 * header itself is asserted on the responses (dashboard.e2e-spec).
 */
export async function openBrowser(
  options: { permissions?: string[] } = {},
): Promise<DashboardBrowser> {
  const browser = await launchChromium();
  const context = await browser.newContext({
    bypassCSP: true,
    ...(options.permissions ? { permissions: options.permissions } : {}),
  });
  return { browser, context, page: await context.newPage() };
}

/**
 * Opens `path` of the dashboard and signs in on the authorization server's
 * page; resolves once the page has its level-1 heading `heading`.
 */
export async function signIn(
  page: Page,
  baseUrl: string,
  person: { email: string; password: string },
  options: { path?: string; heading: string | RegExp },
): Promise<void> {
  await page.goto(`${baseUrl}/dashboard${options.path ?? '/'}`);
  await page.getByLabel('Email address').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByLabel('Password').press('Enter');
  await page.getByRole('heading', { level: 1, name: options.heading }).waitFor();
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const results = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<any> } }).axe;
    return axe.run();
  });
  return (results.violations as { id: string; impact: string; help: string }[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help}`);
}

/** Run in the page: whether the element has the keyboard focus. */
export const isFocused = (element: unknown) =>
  element ===
  (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement;

/** Presses Tab until `locator` has the focus (at most `presses` times); whether it got it. */
export async function tabTo(
  page: Page,
  locator: { evaluate(fn: typeof isFocused): Promise<boolean> },
  presses = 40,
): Promise<boolean> {
  for (let pressed = 0; pressed < presses; pressed++) {
    if (await locator.evaluate(isFocused)) return true;
    await page.keyboard.press('Tab');
  }
  return locator.evaluate(isFocused);
}
