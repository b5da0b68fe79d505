import { router } from '../trpc';
import { accountRouter } from './account/router';
import { authRouter } from './auth/router';

export const appRouter = router({
  auth: authRouter,
  account: accountRouter,
});

export type AppRouter = typeof appRouter;
