// Reproducers: bash + curl scripts that replay a list of requests and say whether an answer
// came back as it did (README "Reproducers"). The entry point for any list of requests:
// reproScript(exchanges, { endpoint, failingStep?, about?, secrets? }) returns the script text.
// The run's own recording of each case is tape.ts and case-tape.ts.
export type { Exchange } from './exchange.ts';
export { type ReproOptions, reproScript } from './script.ts';
