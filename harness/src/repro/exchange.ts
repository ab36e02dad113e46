// One request of a case and the answer it got, as a reproducer replays it. The harness records
// them while a case runs (tape.ts); anything else holding a list of requests (a differential
// run) can build them and call reproScript (script.ts).

export interface Exchange {
  method: string;
  /** Path and query as sent, e.g. `/api/v1/namespaces/a/configmaps?limit=2`. */
  path: string;
  /** Request headers other than credentials (accept, content-type, the case's own). */
  headers?: Record<string, string | string[]>;
  /** The request body as sent. */
  body?: string | Buffer;
  /** The answer's status code; 0 when no answer came (`note` then says why). */
  status: number;
  /** The answer's body; for a watch, the event documents the stream brought, one a line. */
  answer?: string | Buffer;
  /** The answer's content type. */
  answerType?: string;
  /**
   * Whose credentials: the run's (default), none, or a token the case sent of its own (its
   * number among the case's tokens, 1 first; the token itself is never written).
   */
  auth?: 'default' | 'anonymous' | { token: number };
  /** A watch: the stream stayed open this long (ms) while the later requests were sent. */
  watchMs?: number;
  /**
   * A watch the run closed: the index of the first later step sent after it closed (the replay
   * closes it there, once as many events came as the run saw, or its time is up).
   */
  watchUntil?: number;
  /** A watch: how long the run kept it open after its last event (ms; the replay waits as long). */
  watchIdleMs?: number;
  /** A watch the server ended (before the run closed it). */
  watchEnded?: boolean;
  /** Why there was no answer, or what else the run noted about the exchange. */
  note?: string;
  /** The path as the case named it (before dialect mapping, no query): found in failure messages. */
  specPath?: string;
}
