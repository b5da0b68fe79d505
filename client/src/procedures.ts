import { appRouter } from '../../server/routers';
import { idempotentProcedures } from '../../server/routers/idempotent';

// In the repository: read from the router's own metadata. `npm run client:pack` replaces this file,
// in its build folder only, with the same list written out.
export const IDEMPOTENT_PROCEDURES: ReadonlySet<string> = idempotentProcedures(appRouter);
