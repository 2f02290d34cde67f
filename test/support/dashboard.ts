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
  options: { permissions?: string[]; viewport?: { width: number; height: number } } = {},
): Promise<DashboardBrowser> {
  const browser = await launchChromium();
  const context = await browser.newContext({
    bypassCSP: true,
    ...(options.permissions ? { permissions: options.permissions } : {}),
    ...(options.viewport ? { viewport: options.viewport } : {}),
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

/** The little of the DOM layoutProblems reads (the tests' tsconfig has no DOM). */
interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
  width: number;
  height: number;
}
interface PageElement {
  tagName: string;
  className: unknown;
  textContent: string | null;
  parentElement: PageElement | null;
  getBoundingClientRect(): Box;
  labels?: ArrayLike<PageElement> | null;
  getAttribute(name: string): string | null;
  getClientRects(): ArrayLike<Box>;
  checkVisibility(options?: { visibilityProperty?: boolean }): boolean;
  contains(other: PageElement): boolean;
}
interface PageDocument {
  documentElement: { scrollWidth: number; clientWidth: number };
  querySelectorAll(selector: string): ArrayLike<PageElement>;
}
interface PageWindow {
  document: PageDocument;
  getComputedStyle(element: PageElement): { overflowX: string; position: string };
}

/**
 * What is wrong with the page's layout as it is now: the document wider than the viewport
 * (the page scrolls sideways), and visible controls (links, buttons, fields, summaries) whose
 * boxes overlap, one line box at a time (a link wrapping over two lines is two boxes). A
 * control inside another (a button in a link) is no overlap. Each problem as a sentence.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const window = globalThis as unknown as PageWindow;
    const { document } = window;
    const problems: string[] = [];
    const { scrollWidth, clientWidth } = document.documentElement;
    if (scrollWidth > clientWidth) {
      // What sticks out: the outermost elements past the viewport's edge that no box around
      // them scrolls or clips (an absolutely positioned element escapes the boxes inside its
      // containing block).
      const style = (element: PageElement) => window.getComputedStyle(element);
      const past = (element: PageElement) =>
        element.getBoundingClientRect().right > clientWidth + 1;
      const clipped = (element: PageElement) => {
        let escapes = ['absolute', 'fixed'].includes(style(element).position);
        for (let box = element.parentElement; box; box = box.parentElement) {
          if (escapes && style(box).position !== 'static') escapes = false;
          if (!escapes && !past(box) && style(box).overflowX !== 'visible') return true;
        }
        return false;
      };
      const sticking = new Set(
        Array.from(document.querySelectorAll('body *')).filter(
          (element) => past(element) && !clipped(element),
        ),
      );
      const culprits = [...sticking]
        .filter((element) => !element.parentElement || !sticking.has(element.parentElement))
        .map((element) => `${element.tagName.toLowerCase()}.${String(element.className)}`);
      problems.push(
        `the page is ${scrollWidth} px wide in a ${clientWidth} px viewport (${culprits.slice(0, 5).join(', ')})`,
      );
    }
    const name = (element: PageElement) => {
      const text =
        element.getAttribute('aria-label') ??
        element.labels?.[0]?.textContent ??
        element.textContent ??
        '';
      const short = text.trim().replace(/\s+/g, ' ').slice(0, 40);
      return `${element.tagName.toLowerCase()} "${short || element.getAttribute('name') || ''}"`;
    };
    const controls = Array.from(
      document.querySelectorAll('a[href], button, input, select, textarea, summary'),
    )
      .filter((element) => element.checkVisibility({ visibilityProperty: true }))
      .map((element) => ({
        element,
        boxes: Array.from(element.getClientRects()).filter(
          (box) => box.width > 0 && box.height > 0,
        ),
      }))
      .filter(({ boxes }) => boxes.length > 0);
    // More than a pixel each way: borders that touch are no overlap.
    const overlap = (a: Box, b: Box) =>
      Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
      Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
    for (const [index, one] of controls.entries()) {
      for (const other of controls.slice(index + 1)) {
        if (one.element.contains(other.element) || other.element.contains(one.element)) continue;
        if (one.boxes.some((a) => other.boxes.some((b) => overlap(a, b)))) {
          problems.push(`${name(one.element)} overlaps ${name(other.element)}`);
        }
      }
    }
    return problems;
  });
}
