import { router } from '../../trpc';

/** The Pix received (/v2/pix), their devoluções, and the sandbox's payer (POST /sandbox/pix/pay). */
export const pixReceivedRouter = router({});
