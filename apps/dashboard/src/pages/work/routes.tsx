import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { SessionsPage } from './sessions';
import { SessionPage } from './session';
import { AnalysesPage } from './analyses';
import { AnalysisPage } from './analysis';
import { DowsingQueriesPage } from './dowsing-queries';
import { DowsingQueryPage } from './dowsing-query';
import { analysisSearch, dowsingSearch, sessionSearch } from './search';

export const workRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions',
    component: SessionsPage,
    // The list's filters live in the address: Back from a session keeps them, links share them.
    validateSearch: sessionSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions/$sessionId',
    component: SessionPage,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses',
    component: AnalysesPage,
    validateSearch: analysisSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses/$analysisId',
    component: AnalysisPage,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing',
    component: DowsingQueriesPage,
    validateSearch: dowsingSearch,
  }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing/$queryId',
    component: DowsingQueryPage,
  }),
] as const;
