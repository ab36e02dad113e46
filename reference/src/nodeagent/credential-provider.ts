// CredentialProviderConfig (doc3 § Node agent configuration): the fields of its providers and
// their rules. The kubelet 1.28 is followed where the text leaves out the detail: at least one
// provider, unique names that are not paths, at least one image pattern, a cache duration that
// is set and not negative, and an apiVersion among the supported ones (not shown in the text).
import { parseDuration } from '../util/duration.ts';
import { childPath, type FieldError } from './field-error.ts';
import type { FieldDef } from './fields.ts';
import { imagePatternProblem } from './image-pattern.ts';
import { checks, type RuleOptions } from './rule-class.ts';

export const CREDENTIAL_PROVIDER_KIND = 'CredentialProviderConfig';

/** The request versions a provider may speak (kubelet 1.28's v1, v1beta1 and v1alpha1, renamed). */
export const PROVIDER_API_VERSIONS = [
  'credentialprovider.nodeagent.orch.io/v1',
  'credentialprovider.nodeagent.orch.io/v1beta1',
  'credentialprovider.nodeagent.orch.io/v1alpha1',
] as const;

const ROW = 'CredentialProviderConfig: `providers`, a list of `CredentialProvider`';

export const CREDENTIAL_PROVIDER_FIELDS: readonly FieldDef[] = [
  {
    name: 'providers',
    kind: 'objectList',
    required: true,
    row: ROW,
    fields: [
      { name: 'name', kind: 'string', required: true, row: `${ROW} with \`name\`` },
      { name: 'matchImages', kind: 'stringList', required: true, row: `${ROW}: \`matchImages\`` },
      {
        name: 'defaultCacheDuration',
        kind: 'duration',
        required: true,
        row: `${ROW}: \`defaultCacheDuration\``,
      },
      {
        name: 'apiVersion',
        kind: 'string',
        required: true,
        values: PROVIDER_API_VERSIONS,
        row: `${ROW}: \`apiVersion\` (input version)`,
        beyond: 'follows the kubelet 1.28: the supported versions are not shown',
      },
      { name: 'args', kind: 'stringList', row: `${ROW}: \`args\`` },
      {
        name: 'env',
        kind: 'objectList',
        row: `${ROW}: \`env\` (list of \`name\` and \`value\`)`,
        fields: [
          { name: 'name', kind: 'string', required: true, row: `${ROW}: \`env\`` },
          { name: 'value', kind: 'string', row: `${ROW}: \`env\`` },
        ],
      },
    ],
  },
];

type Obj = Record<string, unknown>;

type At = (k: string) => string;

export function checkCredentialProviders(c: Obj, opts: RuleOptions | undefined, out: FieldError[]): void {
  const providers = c.providers;
  if (!Array.isArray(providers) || providers.length === 0) {
    if (checks(opts, 'required'))
      out.push({ path: 'providers', type: 'Required value', detail: 'at least one provider is required' });
    return;
  }
  const names = new Set<string>();
  providers.forEach((raw, i) => {
    if (raw === null || typeof raw !== 'object') return;
    const p = raw as Obj;
    const at = (k: string) => childPath(childPath('providers', i), k);
    checkName(p.name, at, names, opts, out);
    checkImages(p.matchImages, at, opts, out);
    checkCacheDuration(p.defaultCacheDuration, at, opts, out);
    checkApiVersion(p.apiVersion, at, opts, out);
    if (Array.isArray(p.env))
      p.env.forEach((e, j) => {
        const n = (e as Obj | null)?.name;
        if ((typeof n !== 'string' || n === '') && checks(opts, 'required'))
          out.push({
            path: childPath(childPath(at('env'), j), 'name'),
            type: 'Required value',
            detail: 'name must be set',
          });
      });
  });
}

/** A provider's name: set, an executable's name rather than a path, unique (`names` holds the earlier ones). */
function checkName(
  name: unknown,
  at: At,
  names: Set<string>,
  opts: RuleOptions | undefined,
  out: FieldError[],
): void {
  if (typeof name !== 'string' || name === '') {
    if (checks(opts, 'required'))
      out.push({ path: at('name'), type: 'Required value', detail: 'name must be set' });
  } else if (checks(opts, 'credential-providers')) {
    if (/[/\\]/.test(name) || name === '.' || name === '..')
      out.push({
        path: at('name'),
        type: 'Invalid value',
        value: name,
        detail: 'must be the name of an executable, not a path',
      });
    if (names.has(name))
      out.push({
        path: at('name'),
        type: 'Duplicate value',
        value: name,
        detail: 'provider names must be unique',
      });
    names.add(name);
  }
}

/** A provider's image patterns: at least one, each a valid pattern. */
function checkImages(images: unknown, at: At, opts: RuleOptions | undefined, out: FieldError[]): void {
  if (!Array.isArray(images) || images.length === 0) {
    if (checks(opts, 'required'))
      out.push({
        path: at('matchImages'),
        type: 'Required value',
        detail: 'at least one image pattern is required',
      });
  } else if (checks(opts, 'credential-providers'))
    images.forEach((img, j) => {
      if (typeof img !== 'string') return;
      const why = imagePatternProblem(img);
      if (why)
        out.push({ path: childPath(at('matchImages'), j), type: 'Invalid value', value: img, detail: why });
    });
}

/** A provider's cache duration: set, a duration, not negative. */
function checkCacheDuration(cache: unknown, at: At, opts: RuleOptions | undefined, out: FieldError[]): void {
  if (typeof cache !== 'string' || cache === '') {
    if (checks(opts, 'required'))
      out.push({
        path: at('defaultCacheDuration'),
        type: 'Required value',
        detail: 'defaultCacheDuration must be set',
      });
  } else {
    const ns = parseDuration(cache);
    if (ns === undefined && checks(opts, 'durations'))
      out.push({
        path: at('defaultCacheDuration'),
        type: 'Invalid value',
        value: cache,
        detail: 'must be a duration, e.g. 10m',
      });
    if (ns !== undefined && ns < 0n && checks(opts, 'ranges'))
      out.push({
        path: at('defaultCacheDuration'),
        type: 'Invalid value',
        value: cache,
        detail: 'must not be negative',
      });
  }
}

/** A provider's request version: set, one of the supported ones. */
function checkApiVersion(v: unknown, at: At, opts: RuleOptions | undefined, out: FieldError[]): void {
  if (typeof v !== 'string' || v === '') {
    if (checks(opts, 'required'))
      out.push({ path: at('apiVersion'), type: 'Required value', detail: 'apiVersion must be set' });
  } else if (
    !(PROVIDER_API_VERSIONS as readonly string[]).includes(v) &&
    checks(opts, 'credential-providers')
  )
    out.push({
      path: at('apiVersion'),
      type: 'Unsupported value',
      value: v,
      detail: `supported values: ${PROVIDER_API_VERSIONS.map((x) => JSON.stringify(x)).join(', ')}`,
    });
}
