// The admission chain: the plugins of every source, in the order the sources were added,
// mutating phase first, then validating. The sources are read per request, so plugins that
// come from API objects take effect at once. The mutating phase runs a second time when a
// plugin asks for it (Kubernetes 1.28's reinvocation: a webhook changed the object).
import type { WriteAdmission, WriteAdmissionRequest } from '../registry/types.ts';
import {
  type AdmissionAttributes,
  type AdmissionPlugin,
  type PluginSource,
  ReinvocationContext,
} from './types.ts';

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
    const r = (a.reinvocation ??= new ReinvocationContext());
    await this.mutateOnce(a);
    if (!r.shouldReinvoke || r.isReinvoke) return;
    r.isReinvoke = true;
    await this.mutateOnce(a);
  }

  // a plugin that answers at once (most do) is not awaited: an await of nothing still costs a
  // turn of the microtask queue, some forty of them a write with the default plugins
  private async mutateOnce(a: AdmissionAttributes): Promise<void> {
    for (const src of this.sources)
      for (const p of src())
        if (p.mutate && (p.handles === undefined || p.handles(a))) {
          const done = p.mutate(a);
          if (done) await done;
        }
  }

  async validate(a: AdmissionAttributes): Promise<void> {
    for (const src of this.sources)
      for (const p of src())
        if (p.validate && (p.handles === undefined || p.handles(a))) {
          const done = p.validate(a);
          if (done) await done;
        }
  }

  /**
   * The chain as the registry calls it during a write: the request's attributes (kinds,
   * resources, options, user) completed with what the store knows (operation, objects).
   */
  forRequest(base: RequestAttributes): WriteAdmission {
    return new RequestAdmission(this, base);
  }
}

/** What the HTTP layer knows of a write before the store runs it (dry run is read from the context). */
export type RequestAttributes = Omit<
  AdmissionAttributes,
  'operation' | 'object' | 'oldObject' | 'name' | 'namespace' | 'dryRun'
>;

/** One request's admission (a class, not closures: it is made for every write). */
class RequestAdmission implements WriteAdmission {
  constructor(
    private readonly chain: AdmissionChain,
    private readonly base: RequestAttributes,
  ) {}

  private attrs(w: WriteAdmissionRequest): AdmissionAttributes {
    const b = this.base;
    return {
      operation: w.operation,
      requestKind: b.requestKind,
      requestResource: b.requestResource,
      kind: b.kind,
      resource: b.resource,
      subresource: b.subresource,
      namespace: w.namespace,
      name: w.name,
      object: w.object,
      oldObject: w.oldObject,
      options: b.options,
      dryRun: b.ctx.dryRun,
      ctx: b.ctx,
    };
  }

  async mutate(w: WriteAdmissionRequest) {
    const a = this.attrs(w);
    await this.chain.mutate(a);
    return a.object;
  }

  async validate(w: WriteAdmissionRequest) {
    await this.chain.validate(this.attrs(w));
  }
}
