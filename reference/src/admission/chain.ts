// The admission chain: the plugins of every source, in the order the sources were added,
// mutating phase first, then validating. The sources are read per request, so plugins that
// come from API objects take effect at once. The mutating phase runs a second time when a
// plugin asks for it (Kubernetes 1.28's reinvocation: a webhook changed the object).
import type { WriteAdmission, WriteAdmissionRequest } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';
import { isPromise, type MaybePromise } from '../util/maybe-async.ts';
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

  /**
   * The mutating phase. Plugins that answer at once (most do) are not awaited: an await of
   * nothing still costs a turn of the microtask queue, some forty of them a write with the
   * default plugins. The phase answers at once too when every plugin did.
   */
  mutate(a: AdmissionAttributes): MaybePromise<void> {
    const r = (a.reinvocation ??= new ReinvocationContext());
    const first = this.run(a, 'mutate');
    const again = () => {
      if (!r.shouldReinvoke || r.isReinvoke) return;
      r.isReinvoke = true;
      return this.run(a, 'mutate');
    };
    return isPromise(first) ? first.then(again) : again();
  }

  validate(a: AdmissionAttributes): MaybePromise<void> {
    return this.run(a, 'validate');
  }

  /**
   * A phase's plugins in order, from source `si`'s plugin `pi` on (`list`: that source's plugins
   * when resumed): synchronously until a plugin answers with a promise, the rest once it settles.
   */
  private run(
    a: AdmissionAttributes,
    phase: 'mutate' | 'validate',
    si = 0,
    list?: readonly AdmissionPlugin[],
    pi = 0,
  ): MaybePromise<void> {
    for (; si < this.sources.length; si++, list = undefined, pi = 0) {
      const plugins = list ?? this.sources[si]!();
      for (; pi < plugins.length; pi++) {
        const p = plugins[pi]!;
        if (!p[phase] || (p.handles !== undefined && !p.handles(a))) continue;
        const done = phase === 'mutate' ? p.mutate!(a) : p.validate!(a);
        if (done) {
          const source = si;
          const next = pi + 1;
          return done.then(() => this.run(a, phase, source, plugins, next));
        }
      }
    }
    return undefined;
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

  mutate(w: WriteAdmissionRequest): MaybePromise<KObject | undefined> {
    const a = this.attrs(w);
    const done = this.chain.mutate(a);
    return isPromise(done) ? done.then(() => a.object) : a.object;
  }

  validate(w: WriteAdmissionRequest): MaybePromise<void> {
    return this.chain.validate(this.attrs(w));
  }
}
