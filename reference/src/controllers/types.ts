// What a running controller offers the server that started it.
export interface Controller {
  /** Resolves once the controller has dealt with what was stored when it started (when the server waits for it). */
  ready?: Promise<void>;
  /** Stops watching and cancels every timer; a write in flight may still finish. */
  stop(): void;
}
