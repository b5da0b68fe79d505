/**
 * A background loop over due rows: `tick` does one pass and returns how many rows it handled; the loop
 * runs it again at once while there is work, otherwise waits `pollMs` or until woken. State lives in
 * the database, so a restart simply resumes.
 */
export interface JobLoop {
  name: string;
  wake(): void;
  stop(): Promise<void>;
  /** Resolves after the next complete pass (tests await work by condition, not by sleeping). */
  nextPass(): Promise<void>;
}

export function startJobLoop(name: string, tick: () => Promise<number>, pollMs: number): JobLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let wakeUp: (() => void) | null = null;
  let passWaiters: (() => void)[] = [];
  // A wake that arrives while a pass runs is kept, so the next wait ends at once instead of being lost.
  let wokenDuringPass = false;
  const done = (async () => {
    while (!stopped) {
      wokenDuringPass = false;
      let handled = 0;
      try {
        handled = await tick();
      } catch (err) {
        console.error(`[job ${name}] pass failed`, err);
      }
      for (const w of passWaiters.splice(0)) w();
      if (stopped) break;
      if (handled > 0 || wokenDuringPass) continue;
      await new Promise<void>((resolve) => {
        wakeUp = resolve;
        timer = setTimeout(resolve, pollMs);
      });
      if (timer) clearTimeout(timer);
      wakeUp = null;
    }
  })();
  return {
    name,
    wake() { if (wakeUp) wakeUp(); else wokenDuringPass = true; },
    async stop() {
      stopped = true;
      wakeUp?.();
      await done;
      for (const w of passWaiters.splice(0)) w();
    },
    nextPass() {
      return new Promise((resolve) => { passWaiters.push(resolve); if (wakeUp) wakeUp(); else wokenDuringPass = true; });
    },
  };
}
