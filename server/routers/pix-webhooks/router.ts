import { router } from '../../trpc';

/** Webhooks per Pix key of the API Pix (/v2/webhook). */
export const pixWebhooksRouter = router({});
