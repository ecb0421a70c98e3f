const SIGNALS = ["SIGINT", "SIGTERM"] as const;
const EXIT_CODE = { SIGINT: 130, SIGTERM: 143 } as const;

/** A wait for the user (or a supervisor) to stop a long-lived command. */
export interface StopSignal {
  /** Resolves at the first SIGINT or SIGTERM. */
  readonly stopped: Promise<void>;
  /** Remove the listeners (once the command has closed what it had open). */
  release(): void;
}

/**
 * Wait for SIGINT/SIGTERM, with listeners that stay installed while the command shuts down: a
 * second signal exits at once (130 / 143). They must not be `process.once` listeners:
 * proper-lockfile's `signal-exit` re-raises a signal when it finds itself the signal's only
 * listener, and a `once` listener is removed before the next one runs, so the process was killed
 * by the re-raised signal before it could close its index and its server (exit code null).
 */
export function stopSignal(): StopSignal {
  let resolve: () => void = () => {};
  const stopped = new Promise<void>((r) => {
    resolve = r;
  });
  let seen = false;
  const listeners = SIGNALS.map((signal) => {
    const listener = () => {
      if (seen) process.exit(EXIT_CODE[signal]);
      seen = true;
      resolve();
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return {
    stopped,
    release: () => {
      for (const [signal, listener] of listeners) process.off(signal, listener);
    },
  };
}
