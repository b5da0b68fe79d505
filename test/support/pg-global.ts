import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../../db/pg/migrate';
import { startThrowawayPostgres } from '../../scripts/lib/throwaway-postgres';
import { TEMPLATE_DATABASE } from './pg';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's throwaway PostgreSQL (vitest.pg.config.ts): its URL without a database name. */
    testPostgresBase: string;
  }
}

/**
 * vitest.pg.config.ts's global setup: ONE throwaway cluster for the whole PostgreSQL run (starting one
 * per file cost several seconds each on a loaded machine), with a migrated template database. Each file
 * (test/support/pg-setup.ts) and each server it starts gets a database of its own copied from the
 * template, so files stay as isolated as they are on SQLite without paying initdb and migrations each.
 */
export default async function setup(project: TestProject) {
  const cluster = await startThrowawayPostgres({ maxConnections: 400 });
  const template = await cluster.createDatabase(TEMPLATE_DATABASE);
  await migratePostgres(template);
  project.provide('testPostgresBase', template.slice(0, template.lastIndexOf('/')));
  return () => cluster.stop();
}
