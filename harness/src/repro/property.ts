// Property cases (fast-check): a reproducer replays the requests of the counterexample fast-check
// reports, the shrunk one. Every run of an asynchronous property is noted (where the case's
// journal stood before and after it); the last run that failed is that counterexample, as
// fast-check reports the last failing input of its shrinking. Installed once, when the run
// records, on the prototype fast-check's asyncProperty returns.
import fc from 'fast-check';

/** Where a run of a property began and ended, in the case's journal. */
export interface RunSpan {
  from: number;
  to: number;
}

/** The property runs of the case being recorded: what its journal position is, and what to note. */
export interface PropertyWatcher {
  mark(): number;
  failed(span: RunSpan): void;
}

let watcher: PropertyWatcher | undefined;
let installed = false;

type Run = (this: unknown, ...args: unknown[]) => Promise<unknown>;

/** Notes the property runs of a case into `w` until `watchProperties(undefined)`. */
export function watchProperties(w: PropertyWatcher | undefined): void {
  watcher = w;
  if (installed || !w) return;
  installed = true;
  const proto = Object.getPrototypeOf(fc.asyncProperty(fc.constant(0), async () => {})) as { run: Run };
  const run = proto.run;
  if (typeof run !== 'function') return; // another fast-check: reproducers then hold every run's requests
  proto.run = async function (this: unknown, ...args: unknown[]) {
    const w = watcher;
    const from = w?.mark();
    const out = await run.apply(this, args);
    // a failure is an error object or a string (a PreconditionFailure is a skipped input)
    if (w && from !== undefined && out != null && !fc.PreconditionFailure.isFailure(out))
      w.failed({ from, to: w.mark() });
    return out;
  };
}
