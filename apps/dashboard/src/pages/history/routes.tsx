import { createRoute } from '@tanstack/react-router';
import { rootRoute } from '../../root-route';
import { HistoryPage, validateHistorySearch } from './history';
import { CasePage } from './case';
import { ImportPage } from './import';
import { ReportsPage } from './reports';

export const historyRoutes = [
  createRoute({
    getParentRoute: () => rootRoute,
    path: '/history',
    component: HistoryPage,
    // The search's filters live in the URL: a search can be bookmarked, shared and gone back to.
    validateSearch: validateHistorySearch,
  }),
  createRoute({ getParentRoute: () => rootRoute, path: '/history/$caseId', component: CasePage }),
  createRoute({ getParentRoute: () => rootRoute, path: '/history/import', component: ImportPage }),
  createRoute({ getParentRoute: () => rootRoute, path: '/reports', component: ReportsPage }),
] as const;
