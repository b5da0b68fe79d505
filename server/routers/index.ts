import { router } from '../trpc';
import { accountRouter } from './account/router';
import { authRouter } from './auth/router';
import { dashboardRouter } from './dashboard/router';
import { pixRouter } from './pix/router';
import { pixKeysRouter } from './pix-keys/router';
import { pixChargesRouter } from './pix-charges/router';
import { pixLocationsRouter } from './pix-locations/router';
import { pixLoteCobvRouter } from './pix-lotecobv/router';
import { pixReceivedRouter } from './pix-received/router';
import { pixWebhooksRouter } from './pix-webhooks/router';
import { sandboxRouter } from './sandbox/router';
import { sessionRouter } from './session/router';
import { statusRouter } from './status/router';
import { transactionsRouter } from './transactions/router';
import { webhooksRouter } from './webhooks/router';
import { withdrawalsRouter } from './withdrawals/router';

export const appRouter = router({
  auth: authRouter,
  account: accountRouter,
  session: sessionRouter,
  dashboard: dashboardRouter,
  withdrawals: withdrawalsRouter,
  pix: pixRouter,
  pixKeys: pixKeysRouter,
  pixCharges: pixChargesRouter,
  pixLocations: pixLocationsRouter,
  pixLoteCobv: pixLoteCobvRouter,
  pixReceived: pixReceivedRouter,
  pixWebhooks: pixWebhooksRouter,
  transactions: transactionsRouter,
  sandbox: sandboxRouter,
  webhooks: webhooksRouter,
  status: statusRouter,
});

export type AppRouter = typeof appRouter;
