// ConfigMap (core/v1).

import { bool, freeform, mapOf, str } from '../../schema/dsl.ts';
import { objectSchema } from '../../schema/meta.ts';
import type { KObject } from '../../storage/types.ts';
import { deepEqual } from '../../util/object.ts';
import { Causes } from './common.ts';
import { defineKind, printed } from './define.ts';

void freeform;

/** The config map the root-CA publisher keeps in every namespace; the ServiceAccount plugin mounts its `ca.crt`. */
export const ROOT_CA_CONFIG_MAP = 'orch-root-ca.crt';
const KEY = /^[-._a-zA-Z0-9]+$/;

export function validateDataKeys(obj: KObject, fields: string[]): Causes {
  const causes = new Causes();
  const seen = new Set<string>();
  let size = 0;
  for (const f of fields) {
    const data = (obj[f] ?? {}) as Record<string, unknown>;
    for (const [k, v] of Object.entries(data)) {
      if (!KEY.test(k) || k.length > 253)
        causes.invalidShown(
          `${f}[${k}]`,
          `"${k}"`,
          `a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')`,
        );
      if (seen.has(k))
        causes.push({
          reason: 'FieldValueDuplicate',
          field: `${f}[${k}]`,
          message: `Duplicate value: "${k}"`,
        });
      seen.add(k);
      size += k.length + String(v ?? '').length;
    }
  }
  if (size > 1024 * 1024)
    causes.push({
      reason: 'FieldValueTooLong',
      field: '',
      message: 'Too long: must have at most 1048576 bytes',
    });
  return causes;
}

export const configMap = defineKind({
  group: '',
  kind: 'ConfigMap',
  namespaced: true,
  shortNames: ['cm'],
  protobuf: true,
  schema: objectSchema({
    data: mapOf(str()),
    binaryData: mapOf(str({ format: 'byte' })),
    immutable: bool(),
  }),
  table: printed('configMap', {
    Data: (o) =>
      Object.keys((o.data as object) ?? {}).length + Object.keys((o.binaryData as object) ?? {}).length,
  }),
  validate: (o) => validateDataKeys(o, ['data', 'binaryData']),
  validateUpdate: (o, old) => {
    const causes = validateDataKeys(o, ['data', 'binaryData']);
    if (old.immutable === true) {
      if (!deepEqual(o.data, old.data) || !deepEqual(o.binaryData, old.binaryData))
        causes.push({
          reason: 'FieldValueForbidden',
          field: 'data',
          message: 'Forbidden: field is immutable when `immutable` is set',
        });
      if (o.immutable !== true)
        causes.push({
          reason: 'FieldValueForbidden',
          field: 'immutable',
          message: 'Forbidden: field is immutable when `immutable` is set',
        });
    }
    return causes;
  },
  normalize: false,
});
