// The embedded servers of a project of `npm test` (`suites`, `suites-etcd`) close once the last of
// its test files has ended, not when the whole run ends: its files run early in the run
// (vitest.config.ts orders them), and the pairs of reference servers on etcd would otherwise
// stay up through the rest of it, idle but not free: each pair renews its controller-manager
// lease every 2 s, as a Kubernetes cluster does, and each etcd keeps its own time (measured: 1.7
// CPU s every 30 s for the whole set, some 30 CPU s over the ten minutes a CI run goes on after
// them). The global setup (scripts/embedded-setup.ts) hands over how to close a project's
// servers; this reporter calls it. Both run in vitest's main process, but each is loaded as a
// module of its own, so they meet on a registry kept on globalThis. In watch mode nothing
// closes early (a file may run again); the global teardown closes what is left.
import type { Reporter, TestModule, TestSpecification, Vitest } from 'vitest/node';

type Closers = Map<string, () => Promise<void>>;
const KEY = Symbol.for('orch-conformance.embedded-done');

/** How each project's servers close, by project name (shared by every module instance). */
export function projectClosers(): Closers {
  const g = globalThis as { [KEY]?: Closers };
  g[KEY] ??= new Map();
  return g[KEY];
}

export class CloseServersWhenDone implements Reporter {
  private watch = false;
  /** Test files of each project not yet ended. */
  private readonly left = new Map<string, number>();

  onInit(vitest: Vitest): void {
    this.watch = vitest.config.watch;
  }

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.left.clear();
    for (const s of specifications) this.left.set(s.project.name, (this.left.get(s.project.name) ?? 0) + 1);
  }

  async onTestModuleEnd(module: TestModule): Promise<void> {
    const name = module.project.name;
    const n = (this.left.get(name) ?? 0) - 1;
    this.left.set(name, n);
    if (n > 0 || this.watch) return;
    const close = projectClosers().get(name);
    projectClosers().delete(name);
    await close?.();
  }
}
