// Health checks (doc3 "Health"): named checks contributed by the parts that know (the store's
// state, the custom-definition controller's sync, shutdown), each listed under `/livez`,
// `/readyz` or both; `/healthz` lists the liveness checks, as Kubernetes does. A check answers
// undefined when healthy, or the reason it is not. During the liveness grace period
// (`--livez-grace-period`) `/livez` takes the post-start hooks that have not finished yet as
// passing: start-up is not a failure of liveness.

export type CheckResult = string | undefined;

export interface HealthCheck {
  name: string;
  check(): CheckResult | Promise<CheckResult>;
  /** Which endpoints list it (default both). */
  livez?: boolean;
  readyz?: boolean;
  /** A post-start hook (`poststarthook/<name>`): passing on /livez during the grace period. */
  postStartHook?: boolean;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export class HealthChecks {
  private readonly checks: HealthCheck[] = [];

  /**
   * @param livezGraceUntil until when (ms since the epoch) /livez takes unfinished post-start
   *   hooks as passing
   */
  constructor(
    private readonly livezGraceUntil = 0,
    private readonly now: () => number = Date.now,
  ) {}

  add(c: HealthCheck): void {
    if (this.checks.some((x) => x.name === c.name)) throw new Error(`health check ${c.name} added twice`);
    this.checks.push(c);
  }

  for(endpoint: HealthEndpoint): HealthCheck[] {
    if (endpoint === 'readyz') return this.checks.filter((c) => c.readyz !== false);
    return this.checks.filter((c) => c.livez !== false);
  }

  /** Runs one check for an endpoint; a check that throws has failed with its message. */
  async run(c: HealthCheck, endpoint: HealthEndpoint): Promise<CheckResult> {
    let why: CheckResult;
    try {
      why = await c.check();
    } catch (e) {
      why = e instanceof Error ? e.message : String(e);
    }
    if (why !== undefined && endpoint === 'livez' && c.postStartHook && this.now() < this.livezGraceUntil)
      return undefined;
    return why;
  }
}
