import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { ANALYSIS_FILTERS, DOWSING_FILTERS, searchOf, SESSION_FILTERS } from './search';

export const workRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions',
    component: lazyRouteComponent(() => import('./kinds/sessions'), 'SessionsPage'),
    // The list's filters live in the address: Back from a session keeps them, links share them.
    validateSearch: searchOf(SESSION_FILTERS),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions/$sessionId',
    component: lazyRouteComponent(() => import('./kinds/sessions'), 'SessionPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses',
    component: lazyRouteComponent(() => import('./kinds/analyses'), 'AnalysesPage'),
    validateSearch: searchOf(ANALYSIS_FILTERS),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses/$analysisId',
    component: lazyRouteComponent(() => import('./kinds/analyses'), 'AnalysisPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing',
    component: lazyRouteComponent(() => import('./kinds/dowsing'), 'DowsingQueriesPage'),
    validateSearch: searchOf(DOWSING_FILTERS),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing/$queryId',
    component: lazyRouteComponent(() => import('./kinds/dowsing'), 'DowsingQueryPage'),
  }),
] as const;
