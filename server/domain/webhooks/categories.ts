import type { EventCategory } from '../events';

// Pure constants (no database, no node modules): server/routers/webhooks/schemas.ts imports them, and
// the dashboard's webhook form bundles that schema for the browser.
export const WEBHOOK_CATEGORIES = ['transaction', 'withdraw', 'dispute'] as const satisfies readonly EventCategory[];
export const MAX_WEBHOOK_URL_LENGTH = 2048;
