// Kept apart from test/support/services.ts, which loads the server's modules, so helpers that only
// watch a spawned process (test/support/server.ts) can wait without them.

/** Awaits a condition by polling it (the database through the caller's own reads, a process's output); never a blind sleep. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, o: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 20_000);
  for (;;) {
    const v = await probe();
    if (v) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${o.what ?? 'condition'}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
