import { log } from '../log';

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
  /** For readiness: when the loop last started or finished a pass, and whether it still runs. */
  health(): { running: boolean; lastActivityMs: number; pollMs: number };
}

export function startJobLoop(name: string, tick: () => Promise<number>, pollMs: number): JobLoop {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let wakeUp: (() => void) | null = null;
  let passWaiters: (() => void)[] = [];
  // A wake that arrives while a pass runs is kept, so the next wait ends at once instead of being lost.
  let wokenDuringPass = false;
  let lastActivityMs = Date.now();
  let ended = false;
  const done = (async () => {
    while (!stopped) {
      wokenDuringPass = false;
      let handled = 0;
      lastActivityMs = Date.now();
      const started = process.hrtime.bigint();
      try {
        handled = await tick();
        // one line per pass that did something; idle passes (most of them) say nothing
        if (handled > 0) log.info({ job: name, handled, duration_ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'job pass');
      } catch (err) {
        log.error({ job: name, err, duration_ms: Number(process.hrtime.bigint() - started) / 1e6 }, 'job pass failed');
      }
      lastActivityMs = Date.now();
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
  })().finally(() => { ended = true; });
  return {
    name,
    wake() { if (wakeUp) wakeUp(); else wokenDuringPass = true; },
    async stop() {
      stopped = true;
      wakeUp?.();
      await done;
      for (const w of passWaiters.splice(0)) w();
    },
    health: () => ({ running: !stopped && !ended, lastActivityMs, pollMs }),
    nextPass() {
      return new Promise((resolve) => { passWaiters.push(resolve); if (wakeUp) wakeUp(); else wokenDuringPass = true; });
    },
  };
}
