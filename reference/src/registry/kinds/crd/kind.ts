// The CustomResourceDefinition kind: its schema, defaults and the ResourceDef with its strategy.
import { arr, bool, freeform, int, keyedList, obj, str, time } from '../../../schema/dsl.ts';
import { objectSchema } from '../../../schema/meta.ts';
import type { KObject } from '../../../storage/types.ts';
import { clone } from '../../../util/object.ts';
import type { ResourceDef } from '../../types.ts';
import { defineKind } from '../define.ts';
import {
  CLEANUP_FINALIZER,
  CRD_GROUP,
  CRD_KIND,
  CRD_PLURAL,
  type CrdStatus,
  setCondition,
  specOf,
} from './shared.ts';
import { validateCrd, validateCrdUpdate } from './validation.ts';

const namesSchema = obj({
  plural: str(),
  singular: str(),
  shortNames: arr(str()),
  kind: str(),
  listKind: str(),
  categories: arr(str()),
});

const versionSchema = obj({
  name: str(),
  served: bool(),
  storage: bool(),
  deprecated: bool(),
  deprecationWarning: str(),
  schema: obj({ openAPIV3Schema: freeform() }),
  subresources: obj({
    status: obj({}),
    scale: obj({ specReplicasPath: str(), statusReplicasPath: str(), labelSelectorPath: str() }),
  }),
  additionalPrinterColumns: arr(
    obj({
      name: str(),
      type: str(),
      format: str(),
      description: str(),
      priority: int({ format: 'int32' }),
      jsonPath: str(),
    }),
  ),
});

const crdSchema = objectSchema({
  spec: obj({
    group: str(),
    names: namesSchema,
    scope: str(),
    versions: arr(versionSchema),
    conversion: obj({
      strategy: str(),
      webhook: obj({
        clientConfig: obj({
          url: str(),
          service: obj({ namespace: str(), name: str(), path: str(), port: int({ format: 'int32' }) }),
          caBundle: str({ format: 'byte' }),
        }),
        conversionReviewVersions: arr(str()),
      }),
    }),
    preserveUnknownFields: bool(),
  }),
  status: obj({
    conditions: keyedList(
      obj({ type: str(), status: str(), lastTransitionTime: time(), reason: str(), message: str() }),
      ['type'],
    ),
    acceptedNames: namesSchema,
    storedVersions: arr(str()),
  }),
});

/** Defaults of apiextensions.orch.io/v1: conversion None, singular and listKind from kind, served/storage false. */
function applyCrdDefaults(o: KObject): void {
  const spec = (o.spec ??= {}) as Record<string, unknown>;
  if (spec.conversion === undefined || spec.conversion === null) spec.conversion = { strategy: 'None' };
  const names = spec.names as Record<string, unknown> | undefined;
  if (names && typeof names === 'object') {
    if (!names.singular && typeof names.kind === 'string') names.singular = names.kind.toLowerCase();
    if (!names.listKind && typeof names.kind === 'string' && names.kind) names.listKind = `${names.kind}List`;
  }
  if (Array.isArray(spec.versions))
    for (const v of spec.versions as Record<string, unknown>[]) {
      if (!v || typeof v !== 'object') continue;
      v.served ??= false;
      v.storage ??= false;
    }
}

function addStoredVersion(o: KObject): void {
  const spec = specOf(o);
  const storage = (spec.versions ?? []).find((v) => v?.storage);
  if (!storage) return;
  const status = (o.status ??= {}) as CrdStatus;
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage.name)) stored.push(storage.name);
}

export function crdDef(): ResourceDef {
  return defineKind({
    group: CRD_GROUP,
    kind: CRD_KIND,
    listKind: 'CustomResourceDefinitionList',
    plural: CRD_PLURAL,
    singular: 'customresourcedefinition',
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: ['status'],
    schema: crdSchema,
    allowUnconditionalUpdate: false,
    allowCreateOnUpdate: false,
    prepareForCreate(o: KObject) {
      applyCrdDefaults(o);
      o.status = { acceptedNames: { plural: '', kind: '' } };
      addStoredVersion(o);
      if (!(o.status as CrdStatus).storedVersions) (o.status as CrdStatus).storedVersions = [];
    },
    prepareForUpdate(o: KObject, old: KObject) {
      applyCrdDefaults(o);
      o.status = clone(old.status);
      addStoredVersion(o);
    },
    validate: (o) => validateCrd(o),
    validateUpdate: (o, old) => validateCrdUpdate(o, old),
    gracefulDelete: (o) => !o.metadata.deletionTimestamp,
    prepareForDelete(o: KObject) {
      const fins = (o.metadata.finalizers ??= []);
      if (!fins.includes(CLEANUP_FINALIZER)) fins.push(CLEANUP_FINALIZER);
      const status = (o.status ??= {}) as CrdStatus;
      setCondition(status, {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      });
    },
    tracksGeneration: true,
    normalize: false,
  });
}
