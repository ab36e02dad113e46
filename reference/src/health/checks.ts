// Health checks (doc3 "Health"): named checks contributed by the parts that know (the store's
// failed state, the custom-definition controller's sync, shutdown), each listed under
// `/livez`, `/readyz` or both; `/healthz` lists the liveness checks, as Kubernetes does.
// A check answers undefined when healthy, or the reason it is not.

export type CheckResult = string | undefined;

export interface HealthCheck {
  name: string;
  check(): CheckResult | Promise<CheckResult>;
  /** Which endpoints list it (default both). */
  livez?: boolean;
  readyz?: boolean;
}

export type HealthEndpoint = 'healthz' | 'livez' | 'readyz';

export class HealthChecks {
  private readonly checks: HealthCheck[] = [];

  add(c: HealthCheck): void {
    if (this.checks.some((x) => x.name === c.name)) throw new Error(`health check ${c.name} added twice`);
    this.checks.push(c);
  }

  for(endpoint: HealthEndpoint): HealthCheck[] {
    if (endpoint === 'readyz') return this.checks.filter((c) => c.readyz !== false);
    return this.checks.filter((c) => c.livez !== false);
  }

  /** Runs one check; a check that throws has failed with its message. */
  static async run(c: HealthCheck): Promise<CheckResult> {
    try {
      return await c.check();
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }
}
