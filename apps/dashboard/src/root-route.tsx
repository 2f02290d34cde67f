import { createRootRoute } from '@tanstack/react-router';
import { NotFoundPage } from './pages/not-found';
import { Shell } from './shell';

/** The parent of every page: the shell (header, navigation) around the page. */
export const rootRoute = createRootRoute({ component: Shell, notFoundComponent: NotFoundPage });
