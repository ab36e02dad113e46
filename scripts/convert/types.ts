// The contract of one conversion rule: an object of a retired (or older) version rewritten
// into its replacement, with a note for each thing that could not be carried over or that
// changes meaning.
export type Obj = Record<string, any>;

export interface Conversion {
  /** The converted object (apiVersion set to the target). */
  object: Obj;
  /** Things not converted, or converted with a change of behaviour, in words a person acts on. */
  notes: string[];
}

export interface Rule {
  /** Kinds and the versions this rule reads (`extensions/v1beta1`). */
  kinds: string[];
  from: string[];
  /** The group/version it writes. */
  to: string;
  /**
   * Rewrites (a copy of) the object; `from` is the object's original apiVersion (orch words);
   * `w` maps an orch word to the file's dialect (`x-orch-` to `x-kubernetes-`, ...).
   */
  convert(o: Obj, from: string, notes: string[], w: (s: string) => string): Obj | undefined;
}
