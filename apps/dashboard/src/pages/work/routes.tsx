import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { SessionsPage } from './sessions';
import { SessionPage } from './session';
import { AnalysesPage } from './analyses';
import { AnalysisPage } from './analysis';
import { DowsingQueriesPage } from './dowsing-queries';
import { DowsingQueryPage } from './dowsing-query';

export const workRoutes = [
  createRoute({ getParentRoute: () => rootRoute, path: '/sessions', component: SessionsPage }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/sessions/$sessionId',
    component: SessionPage,
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/analyses', component: AnalysesPage }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/analyses/$analysisId',
    component: AnalysisPage,
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/dowsing', component: DowsingQueriesPage }),
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/dowsing/$queryId',
    component: DowsingQueryPage,
  }),
] as const;
