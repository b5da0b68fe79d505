// Pure constants (no database, no node modules): server/routers/webhooks/schemas.ts imports them, and
// the dashboard's webhook form bundles that schema for the browser.
export { EVENT_CATEGORIES as WEBHOOK_CATEGORIES } from './enums';
export const MAX_WEBHOOK_URL_LENGTH = 2048;
