import { z } from 'zod';

export const readinessCheckName = z.enum(['shutdown', 'database', 'migrations', 'writer', 'jobs', 'ledger']);

/** The readiness report, as /readyz answers it and the dashboard's Status page shows it. */
export const readinessResponse = z.object({
  ready: z.boolean(),
  failed: readinessCheckName.nullable(),
  checks: z.array(z.object({ name: readinessCheckName, ok: z.boolean(), detail: z.string().nullable() })),
  audited_at: z.string().nullable(),
});
export type ReadinessResponse = z.infer<typeof readinessResponse>;
