// In the repository the router type is the server's own. `npm run client:pack` replaces this file, in
// its build folder only, with a standalone declaration of the same procedures (scripts/client-pack.ts),
// so the package depends on no server code.
export type { AppRouter } from '../../server/routers';
