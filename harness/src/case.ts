// Declaring a conformance case: its id, title and spec place, run as a vitest test with
// Allure labels, expectations applied from outside the test, and skips that say why. A case
// that needs more of a server than the API (`needs`) runs against a target that meets them
// (targets.ts): on the embedded run that is always one of its servers. Against a target with
// several endpoints, a failure lists the case's last requests and the endpoint that took each.
import { appendFileSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import * as allure from 'allure-js-commons';
import { test } from 'vitest';
import { setCurrentPlace } from './assert.ts';
import { type Client, requestTimeoutMs } from './client.ts';
import { namingEndpoints } from './endpoints.ts';
import { expectationFor } from './expectations.ts';
import { type CaseTape, startTape } from './repro/case-tape.ts';
import { runEnv } from './run-env.ts';
import { inProfile, profileFromEnv } from './profile.ts';
import { sessionExpectations } from './session.ts';
import { type CaseDef, DOCS, describePlace } from './spec.ts';
import { describeNeeds, type NamedTarget, type Needs, route, waitBoundMs } from './targets.ts';

export interface CaseContext {
  /** The client of the target the case runs against (the run's main one unless `needs` routed it). */
  client: Client;
  /** That target, with what is declared about it (retention, bookmark interval, gates). */
  target: NamedTarget;
  /** Skips the case with a reason (reported as skipped, never as passed). */
  skip(reason: string): never;
  /** A narrated step (shown in the report). */
  step<T>(name: string, body: () => Promise<T> | T): Promise<T>;
}

export interface CaseOptions {
  timeout?: number;
  /** What the case needs of a server beyond the API; it runs against a target that meets it. */
  needs?: Needs;
  /**
   * The requirement is about one server's own state (a cache, its metrics), not the API's:
   * on a target with several endpoints every request of the case goes to one of them.
   */
  oneServer?: boolean;
}

/**
 * An error whose message hides its cause (fast-check's "Property failed after 1 tests" wraps the
 * error the case met, such as an endpoint that stopped answering) gets the cause's message
 * appended, so the report says what happened.
 */
export function withCause(e: unknown): unknown {
  if (!(e instanceof Error) || !(e.cause instanceof Error) || e.message.includes(e.cause.message)) return e;
  const old = e.message;
  const stack = e.stack; // read first: V8 formats it lazily, from the message of the moment
  e.message = `${old}\nCaused by: ${e.cause.message}`;
  if (stack?.includes(old)) e.stack = stack.replace(old, e.message);
  return e;
}

/**
 * The run each case id was declared in: an id declared twice in one run is a mistake. (A batch
 * of runs in one worker, faults/test/batch, declares a suite's cases once for each run.)
 */
const declaredIn = new Map<string, NodeJS.ProcessEnv>();

const SEVERITY: Record<CaseDef['level'], string> = {
  MUST: 'critical',
  SHOULD: 'normal',
  MAY: 'minor',
  BEYOND: 'trivial',
};

/** Allure metadata only when the runner collects Allure results (otherwise the calls just print noise). */
const reporting = !!process.env.ORCH_REPORT_DIR;

/**
 * Writes the reproducer of a failed case (repro/case-tape.ts), attaches it to the case's
 * Allure result and names it in the failure message. A skip is no failure; a reproducer that
 * cannot be written says why in the message instead.
 */
async function reproducer(tape: CaseTape, def: CaseDef, e: unknown): Promise<void> {
  if (!(e instanceof Error) || (e as { code?: unknown }).code === 'VITEST_PENDING') return;
  let line: string;
  try {
    const file = tape.failed(
      { id: def.id, title: def.title, place: describePlace(def), level: def.level },
      e,
      requestTimeoutMs() / 1000,
    );
    if (!file) return;
    line = `Reproducer: ${file}`;
    if (reporting)
      await allure.attachment(`reproducer ${basename(file)}`, readFileSync(file, 'utf8'), 'text/plain');
  } catch (err) {
    line = `Reproducer: not written (${(err as Error).message})`;
  }
  const before = e.message;
  const stack = e.stack; // read first: V8 formats it lazily, from the message of the moment
  e.message = `${before}\n  ${line}`;
  if (stack?.includes(before)) e.stack = stack.replace(before, e.message);
}

export function conformance(
  def: CaseDef,
  fn: (t: CaseContext) => Promise<void>,
  opts: CaseOptions = {},
): void {
  if (!/^[a-z0-9-]+(\/[a-z0-9.-]+)+$/.test(def.id))
    throw new Error(`case id "${def.id}" must look like area/topic/name`);
  const run = runEnv();
  if (declaredIn.get(def.id) === run) throw new Error(`duplicate case id "${def.id}"`);
  declaredIn.set(def.id, run);
  const out = process.env.ORCH_MANIFEST_OUT;
  if (out)
    appendFileSync(
      out,
      `${JSON.stringify({ id: def.id, title: def.title, doc: def.doc, section: def.section, place: def.place, level: def.level, ...(def.specRules?.length ? { specRules: def.specRules } : {}) })}\n`,
    );
  const name = `${def.id}: ${def.title}`;
  const exp = expectationFor(sessionExpectations(), def.id);
  const body = async (ctx: { skip: (note?: string) => void }) => {
    if (reporting)
      await allure.labels(
        { name: 'epic', value: `doc${def.doc} ${DOCS[def.doc]}` },
        { name: 'feature', value: def.section },
        { name: 'story', value: def.place },
        { name: 'severity', value: SEVERITY[def.level] },
        { name: 'tag', value: def.level },
        { name: 'caseId', value: def.id },
      );
    if (reporting)
      await allure.description(
        `${def.title}\n\nSpec: ${describePlace(def)}${exp ? `\n\nExpectation: ${exp.expect} — ${exp.note}` : ''}`,
      );
    if (reporting && exp) await allure.tag(`expected-${exp.expect}`);
    const where = await route(opts.needs);
    if (!where.ok) {
      // the embedded run starts a server for every need: a need it cannot meet is a bug there
      if (where.embedded)
        throw new Error(
          `the embedded run has no server with ${describeNeeds(opts.needs ?? {})} (scripts/embedded.ts starts them): ${where.reason}`,
        );
      ctx.skip(where.reason);
      return;
    }
    if (reporting && where.target.name !== 'main')
      await allure.label(
        'target',
        `${where.target.name}${where.target.about ? ` (${where.target.about})` : ''}`,
      );
    setCurrentPlace(def);
    const endpoints = where.client.endpoints;
    const tape = startTape(endpoints);
    try {
      await namingEndpoints(endpoints, () =>
        (opts.oneServer ? endpoints.pinned.bind(endpoints) : (b: () => Promise<void>) => b())(() =>
          fn({
            client: where.client,
            target: where.target,
            skip: (reason: string) => {
              ctx.skip(reason);
              throw new Error('unreachable');
            },
            step: (n, b) =>
              reporting
                ? (allure.step(n, async () => b()) as Promise<Awaited<ReturnType<typeof b>>>)
                : Promise.resolve().then(b),
          }).catch((e: unknown) => {
            throw withCause(e);
          }),
        ),
      );
    } catch (e) {
      if (tape) await reproducer(tape, def, e);
      throw e;
    } finally {
      tape?.end();
      setCurrentPlace(undefined);
    }
  };
  const options = {
    timeout: (opts.timeout ?? 30_000) + (opts.needs ? waitBoundMs(opts.needs) : 0),
    retry: exp?.expect === 'flaky' ? 2 : 0,
  };
  // a case of a level the run's profile leaves out (`run --level`) is declared but not run:
  // the reports count it as not selected
  if (!inProfile(def.level, profileFromEnv(run))) test.skip(name, body);
  else if (exp?.expect === 'skip') test.skip(`${name} [skip: ${exp.note}]`, body);
  else if (exp?.expect === 'fail') test.fails(name, options, body);
  else test(name, options, body);
}
