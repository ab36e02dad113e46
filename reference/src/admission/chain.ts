// The admission chain: the plugins of every source, in the order the sources were added,
// mutating phase first, then validating. The sources are read per request, so plugins that
// come from API objects take effect at once.
import type { WriteAdmission, WriteAdmissionRequest } from '../registry/types.ts';
import type { AdmissionAttributes, AdmissionPlugin, PluginSource } from './types.ts';

export class AdmissionChain {
  private readonly sources: PluginSource[] = [];

  constructor(plugins: readonly AdmissionPlugin[] = []) {
    if (plugins.length) this.sources.push(() => plugins);
  }

  addSource(s: PluginSource): void {
    this.sources.push(s);
  }

  plugins(): AdmissionPlugin[] {
    return this.sources.flatMap((s) => s());
  }

  async mutate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins()) if (p.mutate && (p.handles?.(a) ?? true)) await p.mutate(a);
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins()) if (p.validate && (p.handles?.(a) ?? true)) await p.validate(a);
  }

  /**
   * The chain as the registry calls it during a write: the request's attributes (kinds,
   * resources, options, user) completed with what the store knows (operation, objects).
   */
  forRequest(base: Omit<AdmissionAttributes, 'operation' | 'object' | 'oldObject' | 'name' | 'namespace'>): WriteAdmission {
    const attrs = (w: WriteAdmissionRequest): AdmissionAttributes => ({
      ...base,
      operation: w.operation,
      name: w.name,
      namespace: w.namespace,
      object: w.object,
      oldObject: w.oldObject,
    });
    return {
      mutate: async (w) => {
        const a = attrs(w);
        await this.mutate(a);
        return a.object;
      },
      validate: async (w) => {
        await this.validate(attrs(w));
      },
    };
  }
}
