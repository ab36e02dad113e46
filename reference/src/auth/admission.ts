// Admission: plugins run in two phases, mutating then validating. Built-in plugins live
// here; webhooks and policies (document 3) plug into the same chain later.
import type { RequestContext, ResourceDef } from '../registry/types.ts';
import type { KObject } from '../storage/types.ts';

export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

export interface AdmissionAttributes {
  operation: Operation;
  def: ResourceDef;
  version: string;
  namespace: string;
  name: string;
  subresource: string;
  object?: KObject;
  oldObject?: KObject;
  ctx: RequestContext;
}

export interface AdmissionPlugin {
  name: string;
  /** May change `attrs.object`; throws a StatusError to reject. */
  mutate?(attrs: AdmissionAttributes): void | Promise<void>;
  /** Throws a StatusError to reject. */
  validate?(attrs: AdmissionAttributes): void | Promise<void>;
}

export class AdmissionChain {
  constructor(readonly plugins: AdmissionPlugin[] = []) {}

  async mutate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.mutate) await p.mutate(attrs);
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    for (const p of this.plugins) if (p.validate) await p.validate(attrs);
  }
}
