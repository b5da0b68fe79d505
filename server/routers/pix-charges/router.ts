import { router } from '../../trpc';

/** cob, cobv and lotecobv of the API Pix (/v2), and the same for TypeScript services and the dashboard. */
export const pixChargesRouter = router({});
