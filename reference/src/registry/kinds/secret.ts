// Secret (core/v1): base64 `data`, write-only `stringData` merged into `data`, a `type`
// (default Opaque, immutable) with per-type required keys, and `immutable` as ConfigMap has it.
import { errors } from '../../errors/status.ts';
import { bool, mapOf, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import { type Causes, causesOf, immutable } from './common.ts';
import { validateDataKeys } from './configmap.ts';
import { defineKind, printed } from './define.ts';

export const SECRET_TYPES = {
  opaque: 'Opaque',
  serviceAccountToken: 'orch.io/service-account-token',
  dockercfg: 'orch.io/dockercfg',
  dockerConfigJson: 'orch.io/dockerconfigjson',
  basicAuth: 'orch.io/basic-auth',
  sshAuth: 'orch.io/ssh-auth',
  tls: 'orch.io/tls',
  bootstrapToken: 'bootstrap.orch.io/token',
} as const;

export const SERVICE_ACCOUNT_NAME_ANNOTATION = 'orch.io/service-account.name';
export const SERVICE_ACCOUNT_UID_ANNOTATION = 'orch.io/service-account.uid';

/**
 * Where Go's standard base64 decoder stops on `s` (the byte offset it reports), or -1 when
 * `s` decodes. Line breaks are skipped as Go skips them; padding is required.
 */
export function base64ErrorOffset(s: string): number {
  const ALPHA = /[A-Za-z0-9+/]/;
  let j = 0; // position within the current 4-character quantum
  let quantumStart = 0;
  let padded = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\n' || c === '\r') continue;
    if (padded) return i; // nothing may follow the padding
    if (j === 0) quantumStart = i;
    if (c === '=') {
      if (j < 2) return i;
      if (j === 2) {
        // the next significant character must be '=' as well
        let k = i + 1;
        while (k < s.length && (s[k] === '\n' || s[k] === '\r')) k++;
        if (k >= s.length) return s.length;
        if (s[k] !== '=') return k;
        i = k;
      }
      padded = true;
      j = 0;
      continue;
    }
    if (!ALPHA.test(c)) return i;
    j = (j + 1) % 4;
  }
  if (j !== 0) return quantumStart;
  return -1;
}

function badBase64(offset: number): never {
  throw errors.badRequest(
    `Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte ${offset}`,
  );
}

/** Checks `data` values (base64), then folds `stringData` into `data` (encoded), as decoding a Secret does. */
export function normalizeSecret(o: KObject): void {
  for (const k of ['data', 'stringData'] as const) if (o[k] === null) delete o[k];
  const data = (o.data ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(data)) {
    if (v === null) {
      data[k] = '';
      continue;
    }
    const off = base64ErrorOffset(String(v));
    if (off >= 0) badBase64(off);
    // re-encode without line breaks, as the server stores bytes and prints them back
    data[k] = Buffer.from(String(v).replace(/[\r\n]/g, ''), 'base64').toString('base64');
  }
  const sd = o.stringData as Record<string, unknown> | undefined;
  if (sd && typeof sd === 'object') {
    for (const [k, v] of Object.entries(sd))
      data[k] = Buffer.from(String(v ?? ''), 'utf8').toString('base64');
  }
  delete o.stringData;
  if (Object.keys(data).length > 0) o.data = data;
  else delete o.data;
  if (o.type === undefined || o.type === null || o.type === '') o.type = SECRET_TYPES.opaque;
}

function has(o: KObject, key: string): boolean {
  return Object.hasOwn((o.data ?? {}) as object, key);
}

function decoded(o: KObject, key: string): string {
  return Buffer.from(String(((o.data ?? {}) as Record<string, string>)[key] ?? ''), 'base64').toString(
    'utf8',
  );
}

export function validateSecret(o: KObject): Causes {
  const causes = causesOf(
    validateDataKeys(o, ['data']).map((c) =>
      c.reason === 'FieldValueTooLong' ? { ...c, field: 'data' } : c,
    ),
  );
  const type = String(o.type ?? '');
  const ann = o.metadata.annotations ?? {};
  switch (type) {
    case SECRET_TYPES.serviceAccountToken:
      if (!ann[SERVICE_ACCOUNT_NAME_ANNOTATION])
        causes.required(`metadata.annotations[${SERVICE_ACCOUNT_NAME_ANNOTATION}]`);
      break;
    case SECRET_TYPES.dockercfg:
      if (!has(o, '.dockercfg')) causes.required('data[.dockercfg]');
      else if (!isJson(decoded(o, '.dockercfg')))
        causes.invalid('data[.dockercfg]', '<secret contents redacted>', 'invalid character in JSON');
      break;
    case SECRET_TYPES.dockerConfigJson:
      if (!has(o, '.dockerconfigjson')) causes.required('data[.dockerconfigjson]');
      else if (!isJson(decoded(o, '.dockerconfigjson')))
        causes.invalid('data[.dockerconfigjson]', '<secret contents redacted>', 'invalid character in JSON');
      break;
    case SECRET_TYPES.basicAuth:
      if (!has(o, 'username') && !has(o, 'password')) {
        causes.required('data[username]');
        causes.required('data[password]');
      }
      break;
    case SECRET_TYPES.sshAuth:
      if (!has(o, 'ssh-privatekey')) causes.required('data[ssh-privatekey]');
      break;
    case SECRET_TYPES.tls:
      if (!has(o, 'tls.crt')) causes.required('data[tls.crt]');
      if (!has(o, 'tls.key')) causes.required('data[tls.key]');
      break;
    default:
      break;
  }
  return causes;
}

function isJson(s: string): boolean {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
}

export const secretDef = defineKind({
  group: '',
  kind: 'Secret',
  namespaced: true,
  protobuf: true,
  schema: objectSchema({
    data: mapOf(str({ format: 'byte' })),
    stringData: mapOf(str()),
    type: str(),
    immutable: bool(),
  }),
  fieldLabels: { type: (o) => (o.type === undefined ? undefined : String(o.type)) },
  table: printed('secret', {
    Type: (o) => String(o.type ?? ''),
    Data: (o) => Object.keys((o.data as object) ?? {}).length,
  }),
  prepareForCreate: (o) => normalizeSecret(o),
  prepareForUpdate: (o) => normalizeSecret(o),
  validate: (o) => validateSecret(o),
  validateUpdate: (o, old) => {
    const causes = validateSecret(o);
    causes.push(...immutable('type', o.type, old.type));
    if (old.immutable === true) {
      if (o.immutable !== true) causes.forbidden('immutable', 'field is immutable when `immutable` is set');
      if (!deepEqual(o.data ?? {}, old.data ?? {}))
        causes.forbidden('data', 'field is immutable when `immutable` is set');
    }
    return causes;
  },
  normalize: false,
});
