import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { analysisSearch, dowsingSearch, sessionSearch } from './search';

export const workRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions',
    component: lazyRouteComponent(() => import('./sessions'), 'SessionsPage'),
    // The list's filters live in the address: Back from a session keeps them, links share them.
    validateSearch: sessionSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions/$sessionId',
    component: lazyRouteComponent(() => import('./session'), 'SessionPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses',
    component: lazyRouteComponent(() => import('./analyses'), 'AnalysesPage'),
    validateSearch: analysisSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses/$analysisId',
    component: lazyRouteComponent(() => import('./analysis'), 'AnalysisPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing',
    component: lazyRouteComponent(() => import('./dowsing-queries'), 'DowsingQueriesPage'),
    validateSearch: dowsingSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing/$queryId',
    component: lazyRouteComponent(() => import('./dowsing-query'), 'DowsingQueryPage'),
  }),
] as const;
