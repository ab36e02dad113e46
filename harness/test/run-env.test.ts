// Many runs in one worker (the fault meta tests' batches): each run's environment brings its
// own clients and targets, the same environment keeps them, and a case id declared twice in
// one run is still refused while the same suite declared again in another run is not.
import { describe, expect, it } from 'vitest';
import { conformance } from '../src/case.ts';
import { runEnv, useRunEnv } from '../src/run-env.ts';
import { session } from '../src/session.ts';
import { runTargets } from '../src/targets.ts';

const envA = { ORCH_ENDPOINT: 'http://127.0.0.1:1', ORCH_TOKEN: 'a', ORCH_HISTORY_SECONDS: '5' };
const envB = { ORCH_ENDPOINT: 'http://127.0.0.1:2', ORCH_TOKEN: 'b' };

const def = (id: string) => ({
  id,
  title: 't',
  doc: 1 as const,
  section: 's',
  place: 'p',
  level: 'MUST' as const,
});

describe('a batch of runs in one worker', () => {
  it("each run's environment has its own clients and targets; the same environment keeps them", () => {
    useRunEnv(envA);
    expect(runEnv().ORCH_ENDPOINT).toBe(envA.ORCH_ENDPOINT);
    const a = session();
    expect(a.target.url).toBe('http://127.0.0.1:1');
    expect(runTargets().targets[0]!.declared.historySeconds).toBe(5);
    useRunEnv(envA);
    expect(session(), 'the same run keeps its client').toBe(a);
    useRunEnv(envB);
    const b = session();
    expect(b, 'another run gets a client of its own').not.toBe(a);
    expect(b.target.url).toBe('http://127.0.0.1:2');
    expect(runTargets().targets[0]!.declared.historySeconds, "the other run's declarations").toBeUndefined();
  });

  describe('case ids (declared while the file is collected, as suites declare them)', () => {
    useRunEnv(envA);
    conformance(def('harness/run-env/twice'), async () => {});
    let sameRun: unknown;
    try {
      conformance(def('harness/run-env/twice'), async () => {});
    } catch (e) {
      sameRun = e;
    }
    useRunEnv(envB);
    let otherRun: unknown;
    try {
      conformance(def('harness/run-env/twice'), async () => {});
    } catch (e) {
      otherRun = e;
    }
    it('the same id twice in one run is refused; again in another run it is declared', () => {
      expect(String(sameRun)).toContain('duplicate case id "harness/run-env/twice"');
      expect(otherRun).toBeUndefined();
    });
  });
});
