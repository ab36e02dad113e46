// One generated request, as sent.
import type { Header } from './headers.ts';

export interface FuzzRequest {
  index: number;
  /** Which generator made it. */
  family: 'plausible' | 'watch' | 'malformed' | 'chaos';
  method: string;
  /** The request target as sent (path and query, not normalised). */
  target: string;
  headers: Header[];
  body?: Buffer;
  /** A stream (watch, follow): read briefly, then hang up. */
  streaming: boolean;
}
