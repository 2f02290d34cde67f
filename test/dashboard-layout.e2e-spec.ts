import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClient } from './support/client.js';
import {
  isFocused,
  layoutProblems,
  openBrowser,
  seriousViolations,
  signIn,
} from './support/dashboard.js';
import { createOrganization, poolTarget, type TestOrganization } from './support/factories.js';
import { addMember, memberClient, memberToken, type TestMember } from './support/people.js';
import { startStack, type Stack } from './support/stack.js';
import { waitFor } from './support/wait.js';

// Every page of the dashboard at a phone's width and a laptop's, in Chromium against the real
// API and worker: the page never scrolls sideways, no two controls overlap, the page's heading
// shows, and the navigation can be reached (behind the menu button on a phone).

/** A phone (an iPhone 12 to 15 held upright) and a laptop. */
const WIDTHS = [390, 1280] as const;
/** Below this width the navigation folds behind a menu button (styles.css, 48rem). */
const NARROW_BELOW = 768;

/**
 * Every path of the dashboard, read from its own route table (the router the dashboard builds),
 * so a new page is checked here without anyone listing it. Imported at run time by a path the
 * type checker does not follow: the tests' tsconfig has no JSX and no DOM.
 */
async function dashboardPaths(): Promise<string[]> {
  const routerModule = '../apps/dashboard/src/router.tsx';
  const { createAppRouter } = (await import(routerModule)) as {
    createAppRouter(): { routesByPath: Record<string, unknown> };
  };
  return Object.keys(createAppRouter().routesByPath);
}

const PATHS = await dashboardPaths();

const TARGET = 'The lighthouse on the headland at Cape Wrath, Sutherland, Scotland';

let stack: Stack;
let client: TestClient;
let org: TestOrganization;
let token: string;
/** An admin who is also an analyst and a judge: every page of the dashboard is theirs. */
let person: TestMember;
/** The value of each path parameter: a piece of seeded work the page shows. */
const params: Record<string, string> = {};

/** A pool target with one photo. */
function addPoolTarget(description: string, descriptors: string[]): Promise<string> {
  return poolTarget(stack, client, token, {
    description,
    descriptors,
    latitude: 58.6,
    longitude: -5,
  });
}

/** Seeds what every page shows: finished work of each kind, a case, an assignment, a judging task. */
async function seed(): Promise<void> {
  token = await org.token();
  const created = async (path: string, json: object, id: string) => {
    const response = await client.post(path, { token, json });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body[id] as string;
  };
  // The simulator's work, named: with analysts in the organisation the default engine is theirs.
  params.sessionId = await created(
    '/v2/sessions/create',
    { type: 'remote_viewing', target: TARGET, modality: 'visual', engine: 'simulated' },
    'session_id',
  );
  params.analysisId = await created(
    '/v1/analysis/targets',
    {
      target_type: 'location',
      analysis_type: 'quick_scan',
      description: TARGET,
      engine: 'simulated',
    },
    'analysis_id',
  );
  params.queryId = await created(
    '/v1/dowsing/query',
    {
      query_type: 'location',
      question: 'Where along the coast is the lost bell of the lighthouse?',
      context: { location: { latitude: 58.62, longitude: -4.99, radius_meters: 5000 } },
      engine: 'simulated',
    },
    'query_id',
  );
  await org.apiKey();

  // The analysts' and judges' pages: another analyst's judged work, judged by the person, and
  // an assignment of the person's own.
  const other = await addMember(stack, org, ['analyst'], 'Layout Analyst');
  const codeClient = await memberClient(client, org);
  const otherToken = await memberToken(stack, codeClient, other);
  const personToken = await memberToken(stack, codeClient, person);
  const truthId = await addPoolTarget(TARGET, ['tall', 'water', 'vertical']);
  for (const [index, words] of [['land'], ['round'], ['building']].entries()) {
    await addPoolTarget(`Decoy place ${index}`, words);
  }
  const judged = await created(
    '/v2/sessions/create',
    {
      type: 'remote_viewing',
      target: TARGET,
      modality: 'visual',
      engine: 'analyst',
      analyst_count: 1,
      analyst_ids: [other.analystId],
      judging: true,
      decoy_count: 3,
      target_id: truthId,
    },
    'session_id',
  );
  const submitted = await client.post(`/v2/sessions/${judged}/results`, {
    token: otherToken,
    json: { descriptors: ['tall', 'water'], coordinates: { latitude: 58.6, longitude: -5 } },
  });
  expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
  await created(
    '/v2/sessions/create',
    {
      type: 'remote_viewing',
      target: 'A windmill on a hill',
      modality: 'visual',
      engine: 'analyst',
      analyst_count: 1,
      analyst_ids: [person.analystId],
    },
    'session_id',
  );
  const first = async (path: string, id: string, credential: string) =>
    waitFor(async () => {
      const list = await client.get(path, { token: credential });
      return (list.body.data?.[0]?.[id] as string | undefined) ?? null;
    });
  params.assignmentId = await first('/v2/assignments', 'assignment_id', personToken);
  params.taskId = await first('/v2/judging-tasks', 'judging_task_id', personToken);
  // The simulated engine's session, finished, is a case of the history.
  params.caseId = await first('/v2/history/search?q=lighthouse', 'id', token);
  await waitFor(async () => {
    const work = await client.get(`/v1/analysis/${params.analysisId}`, { token });
    return work.body.status === 'completed' ? true : null;
  });
}

beforeAll(async () => {
  stack = await startStack();
  client = await TestClient.for(stack);
  org = await createOrganization(stack, client);
  person = await addMember(stack, org, ['admin', 'analyst', 'judge'], 'Layout Admin');
  await seed();
});

afterAll(async () => {
  await stack?.close();
});

/** A path of the route table with its parameters filled in from the seeded work. */
function concrete(path: string): string {
  return path.replace(/\$(\w+)/g, (_, name: string) => {
    const value = params[name];
    if (!value) throw new Error(`no seeded value for the parameter ${name} of ${path}`);
    return value;
  });
}

describe('the dashboard’s route table', () => {
  it('is read whole, and every parameter of a path has seeded work', () => {
    expect(PATHS).toContain('/');
    expect(PATHS.length).toBeGreaterThan(10);
    for (const path of PATHS) expect(() => concrete(path)).not.toThrow();
  });
});

describe.each(WIDTHS)('the dashboard at %i px wide', (width) => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const narrow = width < NARROW_BELOW;
  /** The shell's main (the "Signing in…" notice is a main of its own, without the shell). */
  const main = () => page.locator('main#main');
  const navigation = () => page.getByRole('navigation', { name: 'Main' });
  const menuButton = () => page.getByRole('button', { name: 'Menu' });

  beforeAll(async () => {
    ({ browser, context, page } = await openBrowser({ viewport: { width, height: 800 } }));
    await signIn(page, stack.baseUrl, person, { heading: 'Overview' });
  });

  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  /** Opens `path` (signed in at the authorization server already) and waits for its content. */
  async function open(path: string): Promise<void> {
    await page.goto(`${stack.baseUrl}/dashboard${path}`);
    const heading = main().getByRole('heading', { level: 1 });
    await heading.waitFor();
    expect(await heading.textContent()).not.toBe('Page not found');
    // Loaded: a paragraph ending in an ellipsis is how the dashboard says something is on its
    // way ("Loading…", "Drawing the chart…"); none is left, and every read succeeded.
    await expect.poll(() => main().locator('p').filter({ hasText: /…$/ }).count()).toBe(0);
    expect(await main().getByRole('alert').allTextContents()).toEqual([]);
  }

  /** Whether the element's box lies within the viewport's width. */
  async function withinWidth(locator: ReturnType<Page['locator']>): Promise<boolean> {
    const box = (await locator.boundingBox())!;
    return box.x >= 0 && box.x + box.width <= width + 0.5;
  }

  /** The tables that scroll sideways in their own box, each by the start of its text. */
  const scrollingTables = () =>
    main()
      .getByRole('table')
      .evaluateAll((tables) =>
        tables
          .map(
            (table) =>
              table as unknown as { scrollWidth: number; clientWidth: number; textContent: string },
          )
          .filter((table) => table.scrollWidth > table.clientWidth)
          .map((table) => table.textContent.slice(0, 60)),
      );

  it.each(PATHS)('lays out %s', async (path) => {
    await open(concrete(path));
    expect(await layoutProblems(page)).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    // A laptop shows every table whole; a phone may scroll one in its own box.
    if (!narrow) expect(await scrollingTables()).toEqual([]);
    const heading = main().getByRole('heading', { level: 1 });
    expect(await heading.isVisible()).toBe(true);
    expect(await withinWidth(heading)).toBe(true);

    // The navigation: in view on a laptop; behind the menu button on a phone.
    const links = navigation().getByRole('link');
    if (narrow) {
      expect(await navigation().isVisible()).toBe(false);
      const menu = menuButton();
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await links.last().waitFor();
      expect(await layoutProblems(page)).toEqual([]);
    } else {
      expect(await menuButton().isVisible()).toBe(false);
    }
    expect(await links.count()).toBeGreaterThan(0);
    for (const link of await links.all()) {
      expect(await link.isVisible()).toBe(true);
      expect(await withinWidth(link)).toBe(true);
    }
    // Every link of the navigation is a page of the route table.
    for (const href of await links.evaluateAll((all) =>
      all.map((link) => (link as unknown as { pathname: string }).pathname),
    )) {
      expect(PATHS).toContain(href.replace(/^\/dashboard/, '') || '/');
    }
    if (narrow) {
      // Escape from a link folds it again and gives the focus back to the button.
      await links.last().focus();
      await page.keyboard.press('Escape');
      expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
      expect(await menuButton().evaluate(isFocused)).toBe(true);
      await links.first().waitFor({ state: 'hidden' });
    }
  });

  it('reaches another page through the navigation', async () => {
    await open('/');
    if (narrow) {
      expect(await menuButton().isVisible()).toBe(true);
      await menuButton().click();
    }
    await navigation().getByRole('link', { name: 'Dowsing queries' }).click();
    await main().getByRole('heading', { level: 1, name: 'Dowsing queries' }).waitFor();
    // On a phone the menu folds once a page is chosen, out of the page's way.
    if (narrow) expect(await menuButton().getAttribute('aria-expanded')).toBe('false');
  });

  it('opens the account menu within the page', async () => {
    await open('/');
    await page.getByText('Account', { exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await layoutProblems(page)).toEqual([]);
    await page.getByText('Account', { exact: true }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor({ state: 'hidden' });
  });

  it('scrolls a table wider than the page in its own box, from the keyboard too', async () => {
    await open('/organisation/audit-log');
    const table = main().getByRole('table').first();
    await table.waitFor();
    const scrolls = await table.evaluate((element) => {
      const box = element as unknown as { scrollWidth: number; clientWidth: number };
      return box.scrollWidth > box.clientWidth;
    });
    // The audit log's five columns of times, names and ids fit a laptop's width, not a phone's.
    expect(scrolls).toBe(narrow);
    expect(await table.getAttribute('tabindex')).toBe(narrow ? '0' : null);
    if (narrow) {
      await table.focus();
      await page.keyboard.press('ArrowRight');
      await expect
        .poll(() =>
          table.evaluate((element) => (element as unknown as { scrollLeft: number }).scrollLeft),
        )
        .toBeGreaterThan(0);
      expect(await layoutProblems(page)).toEqual([]);
    }
  });

  it('keeps the dowsing form’s drop-downs clear of the text field beside them', async () => {
    await open('/dowsing');
    const form = page.getByRole('region', { name: 'Ask a question' });
    const kind = form.getByLabel('Kind of question');
    // The longest choice sets how wide a drop-down wants to be.
    await kind.selectOption('information');
    await form.getByLabel('Options').waitFor();
    const fields = ['Kind of question', 'Question', 'Precision', 'Timeframe (optional)', 'Options'];
    const boxes = [];
    for (const label of fields) {
      boxes.push({ label, box: (await form.getByLabel(label, { exact: true }).boundingBox())! });
    }
    for (const [index, { label, box }] of boxes.entries()) {
      for (const other of boxes.slice(index + 1)) {
        const overlapX = Math.min(box.x + box.width, other.box.x + other.box.width);
        const overlapY = Math.min(box.y + box.height, other.box.y + other.box.height);
        const overlaps =
          overlapX - Math.max(box.x, other.box.x) > 1 &&
          overlapY - Math.max(box.y, other.box.y) > 1;
        expect(overlaps, `${label} overlaps ${other.label}`).toBe(false);
      }
    }
    expect(await layoutProblems(page)).toEqual([]);
  });
});
