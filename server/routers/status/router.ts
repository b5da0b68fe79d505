import { readinessOf } from '../../observability/readiness';
import { dashboardProcedure, router } from '../../trpc';
import { readinessResponse } from './schemas';

/** The dashboard's Status page: the same readiness checks /readyz runs (no account data in them). */
export const statusRouter = router({
  readiness: dashboardProcedure.output(readinessResponse).query(({ ctx }) => readinessOf(ctx.services).check()),
});
