import { router } from '../../trpc';

/** Payload locations of the API Pix (/v2/loc). */
export const pixLocationsRouter = router({});
