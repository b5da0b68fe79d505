import type Database from 'better-sqlite3';
import { applyMigrations, drizzleOver, openConnection, type DrizzleDb } from './client';
import { SqliteGroupCommitWriter, type Writer, type WriteJob } from './writer';

export type { DrizzleDb } from './client';
export type { Writer, WriteJob } from './writer';

/**
 * The seam the domain is written against: `read` is a connection that only ever sees committed work,
 * `write` runs a job on the single writer.
 */
export interface AppDatabase {
  read: DrizzleDb;
  write<T>(job: WriteJob<T>): Promise<T>;
  writer: Writer;
  /** Drains the writer, then closes both connections. */
  close(): Promise<void>;
  path: string;
}

export function openDatabase(path: string): AppDatabase {
  const writeConn = openConnection(path);
  applyMigrations(writeConn);
  const readConn: Database.Database = openConnection(path, { readonly: true });
  const writer = new SqliteGroupCommitWriter(writeConn, drizzleOver(writeConn));
  let closing: Promise<void> | null = null;
  return {
    path,
    read: drizzleOver(readConn),
    writer,
    write: (job) => writer.write(job),
    close() {
      closing ??= writer.close().then(() => {
        readConn.close();
        // leave no WAL behind for the next process to replay
        writeConn.pragma('wal_checkpoint(TRUNCATE)');
        writeConn.close();
      });
      return closing;
    },
  };
}
