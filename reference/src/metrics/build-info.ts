// kubernetes_build_info: a constant 1 labelled with the server's version facts.
import { BUILD_INFO } from './catalog.ts';
import type { MetricsRegistry } from './registry.ts';

export function registerBuildInfo(reg: MetricsRegistry, v: Readonly<Record<string, string>>): void {
  const values = BUILD_INFO.labels.map(
    (l) => v[l.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] ?? '',
  );
  reg.gauge(BUILD_INFO, (emit) => emit(values, 1));
}
