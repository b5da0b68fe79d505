// The typed client for TypeScript code in this repository; other services install the same client as a
// package (`npm run client:pack`, see docs/api.md).
export { createPaymentsClient, type AppRouter, type PaymentsCallContext, type PaymentsClient, type PaymentsClientOptions } from '../client/src/index.js';
