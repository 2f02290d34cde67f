import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { validateHistorySearch } from './search';

export const historyRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/history',
    component: lazyRouteComponent(() => import('./history'), 'HistoryPage'),
    // The search's filters live in the URL: a search can be bookmarked, shared and gone back to.
    validateSearch: validateHistorySearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/history/$caseId',
    component: lazyRouteComponent(() => import('./case'), 'CasePage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/history/import',
    component: lazyRouteComponent(() => import('./import'), 'ImportPage'),
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/reports',
    component: lazyRouteComponent(() => import('./reports'), 'ReportsPage'),
  }),
] as const;
