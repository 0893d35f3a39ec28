/**
 * A run's watch over one outside service (the judge's chat endpoint, an embeddings endpoint). A service that
 * cannot answer (a refused or dropped connection, a request that times out, an answer that is no API answer:
 * an HTML page, a 404 without the API's JSON) fails every request alike: after a few such failures in a row the
 * run stops at once, naming the endpoint and the first error, instead of scoring every question as a failure
 * for hours. An overall deadline bounds the whole run's use of the service, and each request's time limit is
 * cut to what is left of it.
 */

/** Failures in a row after which the service is given up: enough for a blip, few enough to stop fast. */
export const DEFAULT_CONSECUTIVE_FAILURES = 3;

/** How long after the deadline a request cut to it would end by its own time limit (the deadline ends it first). */
const DEADLINE_FIRST_MS = 100;

/** Thrown once a service is given up; every request in flight and every later one ends with it. */
export class ServiceUnavailable extends Error {
  constructor(
    readonly endpoint: string,
    message: string,
    /** The first failure of the run that gave up, as it was said. */
    readonly firstError: string,
  ) {
    super(message);
  }
}

export interface ServiceGuardOptions {
  /** Failures in a row that give the service up (default 3). */
  maxConsecutiveFailures?: number;
  /** The whole run's time with this service, in ms, from the guard's creation (default: none). */
  deadlineMs?: number;
  /** What to call the service in messages: "the chat endpoint", "the embeddings endpoint". */
  what?: string;
  /** Where the deadline is set, said when it passes (the CLI: an option). */
  deadlineHint?: string;
  now?: () => number;
}

export class ServiceGuard {
  private consecutive = 0;
  private firstError: string | undefined;
  private gaveUp: ServiceUnavailable | undefined;
  private readonly stop = new AbortController();
  private readonly startedAt: number;
  private readonly now: () => number;
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly endpoint: string,
    private readonly options: ServiceGuardOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.startedAt = this.now();
  }

  /** Aborted when the service is given up: requests in flight listen to it and end at once. */
  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** The error that gave the service up, if it is. */
  get unavailable(): ServiceUnavailable | undefined {
    return this.gaveUp;
  }

  /**
   * Before a request: throws if the service is given up or the deadline has passed, else the time the
   * request may take at most (the deadline's remainder, capped by `requestTimeoutMs`).
   */
  beforeRequest(requestTimeoutMs: number): number {
    if (this.gaveUp) throw this.gaveUp;
    const deadline = this.options.deadlineMs;
    if (deadline === undefined) return requestTimeoutMs;
    const left = this.startedAt + deadline - this.now();
    if (left <= 0) throw this.giveUp(this.deadlineMessage());
    // The first request arms a timer so that requests in flight at the deadline end there too.
    this.deadlineTimer ??= setTimeout(() => this.giveUp(this.deadlineMessage()), left).unref();
    // A request cut to the deadline is ended by that timer, its own a moment later: otherwise the two could fire in
    // either order (Date.now's milliseconds against the timers' clock), and requests in flight timing out first
    // counted as failures in a row and said so, where the deadline had passed.
    return Math.max(1, Math.min(requestTimeoutMs, left + DEADLINE_FIRST_MS));
  }

  /** An answer the API gave (any status with the API's JSON): the service works. */
  succeeded(): void {
    this.consecutive = 0;
  }

  /** A transport failure or an answer that is no API answer; gives the service up after too many in a row. */
  failed(message: string): ServiceUnavailable | undefined {
    if (this.gaveUp) return this.gaveUp;
    this.firstError ??= message;
    this.consecutive++;
    const limit = this.options.maxConsecutiveFailures ?? DEFAULT_CONSECUTIVE_FAILURES;
    if (this.consecutive < limit) return undefined;
    return this.giveUp(
      `${this.options.what ?? 'the service'} at ${this.endpoint} failed ${this.consecutive} times in a row, so the run stops; the first error: ${this.firstError}`,
    );
  }

  /** Ends the guard's timer (a run that finished). */
  close(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
  }

  private deadlineMessage(): string {
    const seconds = (this.options.deadlineMs ?? 0) / 1000;
    return `${this.options.what ?? 'the service'} at ${this.endpoint}: the run's deadline of ${seconds} s passed${this.options.deadlineHint ? ` (${this.options.deadlineHint})` : ''}`;
  }

  private giveUp(message: string): ServiceUnavailable {
    if (!this.gaveUp) {
      this.gaveUp = new ServiceUnavailable(this.endpoint, message, this.firstError ?? message);
      this.close();
      this.stop.abort(this.gaveUp);
    }
    return this.gaveUp;
  }
}

/** One signal for a request: the caller's cancel, the guard's give-up and the request's own time limit. */
export function requestSignal(...signals: (AbortSignal | undefined)[]): AbortSignal {
  return AbortSignal.any(signals.filter((s): s is AbortSignal => s !== undefined));
}
