// Errors of expression evaluation raised by the orch libraries and the cost tracker.

/** An evaluation error (reported like the language's own: `<message> evaluating rule: <rule>`). */
export class CelEvalError extends Error {}

export const evalError = (message: string): CelEvalError => new CelEvalError(message);

/** The runtime cost of one expression went over its limit: evaluation stops. */
export class CostLimitError extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}
