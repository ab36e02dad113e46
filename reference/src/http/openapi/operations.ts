// The operations: paths, parameters and responses of every served resource and verb (the
// connect subresources' in connect-ops.ts, the discovery endpoints' in discovery-ops.ts).
import { hasProtobuf } from '../../content/protobuf.ts';
import { SUBRESOURCES, subresourceVerbs } from '../../registry/subresources.ts';
import { apiVersionOf, type ResourceDef } from '../../registry/types.ts';
import { connectOps } from './connect-ops.ts';
import { camel, gvName, gvTag, type Json, META, ref } from './names.ts';
import { add, type Op, ok, type ResourceOps } from './op.ts';
import {
  DELETE_PARAMS,
  JSON_T,
  LIST_PARAMS,
  P,
  PATCH_TYPES,
  type Param,
  PB_T,
  WRITE_PARAMS,
  YAML_T,
} from './params.ts';
import { SCALE } from './schemas.ts';

export function resourceOps(def: ResourceDef, version: string, kindDef: string, listDef: string): Op[] {
  const c = resourceContext(def, version, kindDef, listDef);
  collectionOps(c);
  objectOps(c, def.strategy.returnDeletedObject ? ref(kindDef) : ref(`${META}.Status`));
  if (c.verbs.has('list') && c.namespaced)
    add(c, {
      path: `${c.base}/${c.plural}`,
      method: 'get',
      operationId: `list${c.gv}${c.kind}ForAllNamespaces`,
      description: `list or watch objects of kind ${c.kind} in all namespaces`,
      produces: c.listProduces,
      params: LIST_PARAMS,
      responses: ok(ref(listDef)),
      action: 'list',
    });
  if (c.verbs.has('watch')) watchOps(c);
  for (const sub of def.subresources) {
    if (SUBRESOURCES[sub]?.connect) c.ops.push(...connectOps(c, sub));
    else subresourceOps(c, sub);
  }
  return c.ops;
}

function resourceContext(def: ResourceDef, version: string, kindDef: string, listDef: string): ResourceOps {
  const { group, kind, plural } = def;
  const base = group ? `/apis/${group}/${version}` : `/api/${version}`;
  const ns = def.namespaced;
  const coll = ns ? `${base}/namespaces/{namespace}/${plural}` : `${base}/${plural}`;
  const scopeParams: Param[] = ns ? [P.namespace] : [];
  const pb = !def.custom && hasProtobuf(apiVersionOf(group, version), kind);
  const produces = [JSON_T, YAML_T, ...(pb ? [PB_T] : [])];
  return {
    ops: [],
    tag: gvTag(group, version),
    doc: base.slice(1),
    gvk: { group, version, kind },
    kind,
    plural,
    namespaced: ns,
    base,
    gv: gvName(group, version),
    scope: ns ? 'Namespaced' : '',
    coll,
    item: `${coll}/{name}`,
    scopeParams,
    itemParams: [P.name(kind), ...scopeParams],
    verbs: new Set(def.verbs),
    produces,
    listProduces: [...produces, `${JSON_T};stream=watch`, ...(pb ? [`${PB_T};stream=watch`] : [])],
    watchProduces: [JSON_T, `${JSON_T};stream=watch`, ...(pb ? [PB_T, `${PB_T};stream=watch`] : [])],
    consumes: [JSON_T, YAML_T, ...(pb ? [PB_T] : [])],
    patchConsumes: def.custom ? PATCH_TYPES.filter((t) => !t.includes('strategic')) : PATCH_TYPES,
    kindDef,
    listDef,
  };
}

/** list, create and deletecollection, on the collection's path. */
function collectionOps(c: ResourceOps): void {
  const { kind, gv, scope, kindDef, listDef } = c;
  if (c.verbs.has('list'))
    add(c, {
      path: c.coll,
      method: 'get',
      operationId: `list${gv}${scope}${kind}`,
      description: `list or watch objects of kind ${kind}`,
      produces: c.listProduces,
      params: [...c.scopeParams, ...LIST_PARAMS],
      responses: ok(ref(listDef)),
      action: 'list',
    });
  if (c.verbs.has('create'))
    add(c, {
      path: c.coll,
      method: 'post',
      operationId: `create${gv}${scope}${kind}`,
      description: `create a ${kind}`,
      consumes: c.consumes,
      produces: c.produces,
      params: [...c.scopeParams, ...WRITE_PARAMS],
      body: { schema: ref(kindDef), required: true, description: `the ${kind} to create` },
      responses: ok(ref(kindDef), {
        '201': { description: 'Created', schema: ref(kindDef) },
        '202': { description: 'Accepted', schema: ref(kindDef) },
      }),
      action: 'post',
    });
  if (c.verbs.has('deletecollection'))
    add(c, {
      path: c.coll,
      method: 'delete',
      operationId: `deleteCollection${gv}${scope}${kind}`,
      description: `delete collection of ${kind}: answers with the list of the objects deleted or marked for deletion`,
      consumes: c.consumes,
      produces: c.produces,
      params: [
        ...c.scopeParams,
        ...LIST_PARAMS.filter((p) => !['watch', 'allowWatchBookmarks'].includes(p.name)),
        ...DELETE_PARAMS,
      ],
      body: { schema: ref(`${META}.DeleteOptions`), required: false, description: 'options of the deletion' },
      responses: ok(ref(listDef)),
      action: 'deletecollection',
    });
}

/** get, update, patch and delete, on an object's path (`deleted`: what a delete answers). */
function objectOps(c: ResourceOps, deleted: Json): void {
  const { kind, gv, scope, kindDef } = c;
  if (c.verbs.has('get'))
    add(c, {
      path: c.item,
      method: 'get',
      operationId: `read${gv}${scope}${kind}`,
      description: `read the specified ${kind}`,
      produces: c.produces,
      params: [...c.itemParams, P.resourceVersion],
      responses: ok(ref(kindDef)),
      action: 'get',
    });
  if (c.verbs.has('update'))
    add(c, {
      path: c.item,
      method: 'put',
      operationId: `replace${gv}${scope}${kind}`,
      description: `replace the specified ${kind}`,
      consumes: c.consumes,
      produces: c.produces,
      params: [...c.itemParams, ...WRITE_PARAMS],
      body: { schema: ref(kindDef), required: true, description: `the new state of the ${kind}` },
      responses: ok(ref(kindDef), { '201': { description: 'Created', schema: ref(kindDef) } }),
      action: 'put',
    });
  if (c.verbs.has('patch'))
    addPatch(c, c.item, `patch${gv}${scope}${kind}`, `partially update the specified ${kind}`, kindDef);
  if (c.verbs.has('delete'))
    add(c, {
      path: c.item,
      method: 'delete',
      operationId: `delete${gv}${scope}${kind}`,
      description: `delete a ${kind}: a Status when it is gone at once, the object while its deletion is pending (finalizers)`,
      consumes: c.consumes,
      produces: c.produces,
      params: [...c.itemParams, ...DELETE_PARAMS],
      body: { schema: ref(`${META}.DeleteOptions`), required: false, description: 'options of the deletion' },
      responses: ok(deleted, { '202': { description: 'Accepted', schema: ref(kindDef) } }),
      action: 'delete',
    });
}

/** A patch of an object or of its subresource at `path`, answering `answer` (a definition). */
function addPatch(
  c: ResourceOps,
  path: string,
  operationId: string,
  description: string,
  answer: string,
): void {
  add(c, {
    path,
    method: 'patch',
    operationId,
    description,
    consumes: c.patchConsumes,
    produces: c.produces,
    params: [...c.itemParams, ...WRITE_PARAMS],
    body: { schema: ref(`${META}.Patch`), required: true, description: 'the patch' },
    responses: ok(ref(answer)),
    action: 'patch',
  });
}

/** The deprecated `/watch/` paths: a collection's, an object's, and across namespaces. */
function watchOps(c: ResourceOps): void {
  const { kind, gv, scope, plural, base } = c;
  const watchBase = c.namespaced
    ? `${base}/watch/namespaces/{namespace}/${plural}`
    : `${base}/watch/${plural}`;
  const watchParams = LIST_PARAMS.filter((p) => p.name !== 'watch');
  add(c, {
    path: watchBase,
    method: 'get',
    operationId: `watch${gv}${scope}${kind}List`,
    description: `deprecated: watch individual changes to a list of ${kind}; use the 'watch' parameter with a list operation instead`,
    produces: c.watchProduces,
    params: [...c.scopeParams, ...watchParams],
    responses: ok(ref(`${META}.WatchEvent`)),
    action: 'watchlist',
  });
  add(c, {
    path: `${watchBase}/{name}`,
    method: 'get',
    operationId: `watch${gv}${scope}${kind}`,
    description: `deprecated: watch changes to an object of kind ${kind}; use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter`,
    produces: c.watchProduces,
    params: [...c.itemParams, ...watchParams],
    responses: ok(ref(`${META}.WatchEvent`)),
    action: 'watch',
  });
  if (c.namespaced)
    add(c, {
      path: `${base}/watch/${plural}`,
      method: 'get',
      operationId: `watch${gv}${kind}ListForAllNamespaces`,
      description: `deprecated: watch individual changes to a list of ${kind} in all namespaces; use the 'watch' parameter with a list operation instead`,
      produces: c.watchProduces,
      params: watchParams,
      responses: ok(ref(`${META}.WatchEvent`)),
      action: 'watchlist',
    });
}

/** A subresource that is read or written in storage: an operation for each verb it serves. */
function subresourceOps(c: ResourceOps, sub: string): void {
  const { kind, gv, scope } = c;
  const path = `${c.item}/${sub}`;
  const Sub = camel(sub);
  // the scale subresource takes and answers autoscaling/v1 Scale (its kind, in the table of subresources)
  const subDef = SUBRESOURCES[sub]?.kind?.kind === 'Scale' ? SCALE : c.kindDef;
  for (const verb of subresourceVerbs(sub)) {
    if (verb === 'get')
      add(c, {
        path,
        method: 'get',
        operationId: `read${gv}${scope}${kind}${Sub}`,
        description: `read ${sub} of the specified ${kind}`,
        produces: c.produces,
        params: c.itemParams,
        responses: ok(ref(subDef)),
        action: 'get',
      });
    else if (verb === 'update')
      add(c, {
        path,
        method: 'put',
        operationId: `replace${gv}${scope}${kind}${Sub}`,
        description: `replace ${sub} of the specified ${kind}`,
        consumes: c.consumes,
        produces: c.produces,
        params: [...c.itemParams, ...WRITE_PARAMS],
        body: {
          schema: ref(subDef),
          required: true,
          description: `the ${subDef === SCALE ? 'Scale' : kind}`,
        },
        responses: ok(ref(subDef), { '201': { description: 'Created', schema: ref(subDef) } }),
        action: 'put',
      });
    else if (verb === 'patch')
      addPatch(
        c,
        path,
        `patch${gv}${scope}${kind}${Sub}`,
        `partially update ${sub} of the specified ${kind}`,
        subDef,
      );
    else if (verb === 'create')
      add(c, {
        path,
        method: 'post',
        operationId: `create${gv}${scope}${kind}${Sub}`,
        description: `create ${sub} of a ${kind}`,
        consumes: c.consumes,
        produces: c.produces,
        params: [...c.itemParams, P.dryRun, P.fieldManager],
        body: {
          schema: { type: 'object', description: `the ${sub} request object` },
          required: true,
          description: `the ${sub}`,
        },
        responses: ok(ref(`${META}.Status`), {
          '201': { description: 'Created', schema: ref(`${META}.Status`) },
        }),
        action: 'post',
      });
  }
}
