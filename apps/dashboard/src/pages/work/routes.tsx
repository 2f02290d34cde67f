import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import type { ComponentType } from 'react';
import { rootRoute } from '../../root-route';
import { ANALYSIS_FILTERS, DOWSING_FILTERS, searchOf, SESSION_FILTERS } from './search';
import type { WorkFilter } from './search';

type Pages = Record<string, ComponentType>;

/**
 * A kind's two routes: its list at `path`, with its filters in the address
 * (Back from a piece of work keeps them, links share them), and one piece
 * of work at `path/$param`. Both load the kind's module with the page.
 */
function kindRoutes<const Path extends string, const Param extends string, M extends Pages>(
  path: Path,
  param: Param,
  load: () => Promise<M>,
  pages: { list: keyof M & string; one: keyof M & string },
  filters: readonly WorkFilter[],
) {
  return [
    createRoute({
      getParentRoute: () => rootRoute,
      path,
      component: lazyRouteComponent(load, pages.list),
      validateSearch: searchOf(filters),
    }),
    createRoute({
      getParentRoute: () => rootRoute,
      path: `${path}/$${param}` as `${Path}/$${Param}`,
      component: lazyRouteComponent(load, pages.one),
    }),
  ] as const;
}

export const workRoutes = [
  ...kindRoutes(
    '/sessions',
    'sessionId',
    () => import('./kinds/sessions'),
    { list: 'SessionsPage', one: 'SessionPage' },
    SESSION_FILTERS,
  ),
  ...kindRoutes(
    '/analyses',
    'analysisId',
    () => import('./kinds/analyses'),
    { list: 'AnalysesPage', one: 'AnalysisPage' },
    ANALYSIS_FILTERS,
  ),
  ...kindRoutes(
    '/dowsing',
    'queryId',
    () => import('./kinds/dowsing'),
    { list: 'DowsingQueriesPage', one: 'DowsingQueryPage' },
    DOWSING_FILTERS,
  ),
] as const;
