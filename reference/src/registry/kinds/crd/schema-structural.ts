// The structural-schema rules of one schema node (Kubernetes' ValidateStructural): types
// where they are needed, the implicit metadata, the extensions that exclude each other, and
// value validations (allOf, anyOf, oneOf, not) that may not declare structure.
import { type CrdCauses, isObj, type JSP } from './validation-causes.ts';

export type Level = 'root' | 'item' | 'field';

/** What the rules of a node read of it. */
export interface NodeFacts {
  type: string;
  props: Record<string, JSP> | undefined;
  hasProps: boolean;
  intOrString: boolean;
  preserve: boolean;
  embedded: boolean;
}

/** The structural rules of node `s` at `path` (its children are checked on their own). */
export function structuralRules(s: JSP, path: string, level: Level, f: NodeFacts, st: CrdCauses): void {
  const { type, props, hasProps, intOrString, preserve, embedded } = f;
  if (type === 'array' && s.items === undefined) st.required(`${path}.items`, 'must be specified');
  if (s.additionalProperties !== undefined && level === 'root')
    st.forbidden(`${path}.additionalProperties`, 'must not be used at the root');
  if (embedded && type !== 'object') {
    if (!type) st.required(`${path}.type`, 'must be object if x-orch-embedded-resource is true');
    else st.invalid(`${path}.type`, type, 'must be object if x-orch-embedded-resource is true');
  } else if (!type && !intOrString && !preserve) {
    const what =
      level === 'root'
        ? 'at the root'
        : level === 'item'
          ? 'for specified array items'
          : 'for specified object fields';
    st.required(`${path}.type`, `must not be empty ${what}`);
  }
  if (embedded && s.additionalProperties !== undefined)
    st.forbidden(`${path}.additionalProperties`, 'must not be used if x-orch-embedded-resource is set');
  if (level === 'root' && type && type !== 'object')
    st.invalid(`${path}.type`, type, 'must be object at the root');
  metadataRules(props, path, level, embedded, st);
  if (embedded && !preserve && !hasProps)
    st.required(
      `${path}.properties`,
      'must not be empty if x-orch-embedded-resource is true without x-orch-preserve-unknown-fields',
    );
  if (intOrString && preserve)
    st.invalid(
      `${path}.x-orch-preserve-unknown-fields`,
      true,
      'must be false if x-orch-int-or-string is true',
    );
  if (intOrString && embedded)
    st.invalid(`${path}.x-orch-embedded-resource`, true, 'must be false if x-orch-int-or-string is true');
  if (typeof s.pattern === 'string') {
    try {
      new RegExp(s.pattern, 'u');
    } catch (e) {
      try {
        new RegExp(s.pattern);
      } catch {
        st.invalid(
          `${path}.pattern`,
          s.pattern,
          `must be a valid regular expression, but isn't: ${(e as Error).message}`,
        );
      }
    }
  }
  valueValidationRules(s, path, st);
}

/** kind, apiVersion and metadata where a resource's metadata is implicit (the root, an embedded resource). */
function metadataRules(
  props: Record<string, JSP> | undefined,
  path: string,
  level: Level,
  embedded: boolean,
  st: CrdCauses,
): void {
  const checkMetadata = level === 'root' || embedded;
  if (props && checkMetadata) {
    for (const k of ['kind', 'apiVersion']) {
      const p = props[k];
      if (isObj(p) && p.type !== 'string')
        st.invalid(`${path}.properties[${k}].type`, p.type ?? '', 'must be string');
    }
  }
  const meta = props?.metadata;
  if (isObj(meta)) {
    if (checkMetadata && meta.type !== 'object')
      st.invalid(`${path}.properties[metadata].type`, meta.type ?? '', 'must be object');
    if (level === 'root') {
      const keys = Object.keys(meta).filter((k) => k !== 'type' && k !== 'default');
      const mp = isObj(meta.properties) ? Object.keys(meta.properties) : [];
      const onlyNames = mp.every((k) => k === 'name' || k === 'generateName');
      const other = keys.filter((k) => k !== 'properties');
      if (!onlyNames || other.length > 0)
        st.forbidden(
          `${path}.properties[metadata]`,
          'must not specify anything other than name and generateName, but metadata is implicitly specified',
        );
    }
  }
}

/** Value validations (allOf, anyOf, oneOf, not) may not declare structure. */
function valueValidationRules(s: JSP, path: string, st: CrdCauses): void {
  if (Array.isArray(s.anyOf)) {
    const skip = intOrStringAnyOf(s.anyOf);
    for (const [i, x] of (s.anyOf as unknown[]).entries()) nested(x, `${path}.anyOf[${i}]`, skip, st);
  }
  if (Array.isArray(s.allOf))
    for (const [i, x] of (s.allOf as unknown[]).entries())
      nested(x, `${path}.allOf[${i}]`, i === 0 && isObj(x) && intOrStringAnyOf(x.anyOf), st);
  if (Array.isArray(s.oneOf))
    for (const [i, x] of (s.oneOf as unknown[]).entries()) nested(x, `${path}.oneOf[${i}]`, false, st);
  if (isObj(s.not)) nested(s.not, `${path}.not`, false, st);
}

/** The structure a value validation may not declare, in `n` and below. */
function nested(n: unknown, p: string, skipType: boolean, st: CrdCauses): void {
  if (!isObj(n)) return;
  if (n.type !== undefined && !skipType) st.forbidden(`${p}.type`, 'must be empty to be structural');
  if (n.additionalProperties !== undefined)
    st.forbidden(`${p}.additionalProperties`, 'must be undefined to be structural');
  if (n.default !== undefined) st.forbidden(`${p}.default`, 'must be undefined to be structural');
  if (n.title !== undefined && n.title !== '') st.forbidden(`${p}.title`, 'must be empty to be structural');
  if (n.description !== undefined && n.description !== '')
    st.forbidden(`${p}.description`, 'must be empty to be structural');
  if (n.nullable === true) st.forbidden(`${p}.nullable`, 'must be false to be structural');
  for (const ext of ['x-orch-preserve-unknown-fields', 'x-orch-embedded-resource', 'x-orch-int-or-string'])
    if (n[ext] === true) st.forbidden(`${p}.${ext}`, 'must be false to be structural');
  if (Array.isArray(n['x-orch-list-map-keys']) && n['x-orch-list-map-keys'].length)
    st.forbidden(`${p}.x-orch-list-map-keys`, 'must be empty to be structural');
  if (n['x-orch-list-type'] !== undefined)
    st.forbidden(`${p}.x-orch-list-type`, 'must be undefined to be structural');
  if (n['x-orch-map-type'] !== undefined)
    st.forbidden(`${p}.x-orch-map-type`, 'must be undefined to be structural');
  if (isObj(n.properties)) {
    if ('metadata' in n.properties)
      st.forbidden(`${p}.properties[metadata]`, 'must not be specified in a nested context');
    for (const [k, v] of Object.entries(n.properties)) nested(v, `${p}.properties[${k}]`, false, st);
  }
  if (isObj(n.items)) nested(n.items, `${p}.items`, false, st);
  for (const j of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(n[j]))
      for (const [i, x] of (n[j] as unknown[]).entries()) nested(x, `${p}.${j}[${i}]`, false, st);
  if (isObj(n.not)) nested(n.not, `${p}.not`, false, st);
}

/** anyOf [integer, string], as x-orch-int-or-string implies (its types are allowed). */
function intOrStringAnyOf(a: unknown): boolean {
  return (
    Array.isArray(a) &&
    a.length === 2 &&
    isObj(a[0]) &&
    isObj(a[1]) &&
    a[0].type === 'integer' &&
    a[1].type === 'string' &&
    Object.keys(a[0]).length === 1 &&
    Object.keys(a[1]).length === 1
  );
}
