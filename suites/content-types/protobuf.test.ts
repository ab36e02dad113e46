// doc1 § Headers and content negotiation (Accept, Content-Type, the media types) and § Resources
// and their fields (the binary envelope): JSON by default; Protobuf for built-in kinds as the
// 4-byte prefix and an `Unknown` envelope around the object, read with the suite's own codec
// (harness/src/protobuf.ts); Protobuf request bodies; JSON as the fallback where Protobuf is not
// available.
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { configMap, paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import {
  decodeObject,
  type Envelope,
  encodeObject,
  PROTOBUF_PREFIX,
  PROTOBUF_TYPE,
} from '../../harness/src/protobuf.ts';
import { useCustomResource } from '../patch/custom-resource.ts';
import { makeConfigMap, sameJson, showSorted, strMap } from '../patch/support.ts';

const SECTION = 'Headers and content negotiation';
const ENVELOPE = 'Resources and their fields';
const ENVELOPE_ROW =
  'Binary envelope for the Protobuf representation: Prefix | 4 bytes: 0x6b 0x38 0x73 0x00; Message `Unknown` | `typeMeta` (field 1 ...), `raw` (field 2 ...), `contentEncoding` (field 3 ...), `contentType` (field 4 ...)';
const MEDIA_TYPES =
  'Media types: `application/json` (supported by all built-in types); `application/vnd.orch.protobuf` (not available for custom-definition types or aggregated APIs; a client that may meet such types lists JSON as a fallback in `Accept`)';

const baseType = (r: Response) => (r.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

/** Decodes a Protobuf reply with the suite's codec; a reply it cannot read fails the case. */
function decode(client: Client, r: Response, why: string): { envelope: Envelope; object: any } {
  check(
    baseType(r) === client.d.w(PROTOBUF_TYPE),
    `Content-Type: ${PROTOBUF_TYPE}`,
    `Content-Type: ${r.header('content-type') ?? '(none)'}; body ${show(r.text.slice(0, 80))}`,
    why,
  );
  check(
    r.body.subarray(0, 4).equals(PROTOBUF_PREFIX),
    'a body starting with the prefix 6b 38 73 00',
    `a body starting with ${r.body.subarray(0, 4).toString('hex') || '(empty)'}`,
    'a client that receives Protobuf content lacking the prefix must reject the response',
  );
  try {
    const d = decodeObject(r.body);
    return { envelope: d.envelope, object: client.d.in(d.object) };
  } catch (e) {
    check(false, 'a Protobuf envelope the client can decode', (e as Error).message, why);
  }
}

describe('content-types: JSON and Protobuf', () => {
  const ns = useNamespace('ct-pb');
  const cr = useCustomResource('ctpb', { spec: 'preserve' });

  conformance(
    {
      id: 'content-types/json/default',
      title: 'Without an Accept header the server answers application/json',
      doc: 1,
      section: SECTION,
      place: '`Accept` | Preferred media type; default `application/json`',
      specRules: ['doc1/headers-content-negotiation/accept-preferred-media-type-default-application'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const r = await client.get(cm.path);
      checkStatus(r, 200);
      check(
        baseType(r) === 'application/json',
        'Content-Type: application/json',
        `Content-Type: ${r.header('content-type')}`,
      );
      check(
        r.json?.kind === 'ConfigMap' && r.json?.metadata?.name === cm.name,
        `the ConfigMap ${cm.name} as JSON`,
        r.describe(),
      );
    },
  );

  conformance(
    {
      id: 'content-types/protobuf/object',
      title:
        'A GET of a ConfigMap with Accept: application/vnd.orch.protobuf answers the prefix, then an Unknown envelope with typeMeta v1/ConfigMap, no content encoding, and raw holding the object',
      doc: 1,
      section: ENVELOPE,
      place: ENVELOPE_ROW,
      specRules: [
        'doc1/resources-their-fields/prefix-4-bytes-0x6b-0x38-0x73',
        'doc1/resources-their-fields/message-unknown-typemeta-field-1-message',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1', b: 'two' }, labels: { app: 'pb' } });
      const r = await client.get(cm.path, { accept: PROTOBUF_TYPE });
      checkStatus(r, 200);
      const { envelope, object } = decode(client, r, 'a built-in kind is served in Protobuf when asked');
      check(
        envelope.apiVersion === 'v1' && envelope.kind === 'ConfigMap',
        'typeMeta apiVersion "v1", kind "ConfigMap"',
        show({ apiVersion: envelope.apiVersion, kind: envelope.kind }),
      );
      check(
        !envelope.contentEncoding,
        'contentEncoding unset or empty (no encoding)',
        show(envelope.contentEncoding),
      );
      check(
        !envelope.contentType || envelope.contentType === client.d.w(PROTOBUF_TYPE),
        'contentType unset (the Protobuf media type) or the Protobuf media type',
        show(envelope.contentType),
      );
      const got = {
        name: object.metadata?.name,
        uid: object.metadata?.uid,
        labels: object.metadata?.labels,
        data: object.data,
      };
      const want = { name: cm.name, uid: cm.uid, labels: { app: 'pb' }, data: { a: '1', b: 'two' } };
      check(sameJson(got, want), showSorted(want), showSorted(got), 'raw is the complete serialized object');
    },
  );

  conformance(
    {
      id: 'content-types/protobuf/list',
      title:
        'A list of ConfigMaps in Protobuf is a ConfigMapList envelope whose items are the objects of the namespace',
      doc: 1,
      section: ENVELOPE,
      place: ENVELOPE_ROW,
      specRules: [
        'doc1/resources-their-fields/prefix-4-bytes-0x6b-0x38-0x73',
        'doc1/resources-their-fields/message-unknown-typemeta-field-1-message',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const names: string[] = [];
      for (let i = 0; i < 3; i++)
        names.push((await makeConfigMap(client, ns.name, { data: { i: String(i) } }, 'pbl')).name);
      const r = await client.get(paths.configmaps(ns.name), { accept: PROTOBUF_TYPE });
      checkStatus(r, 200);
      const { envelope, object } = decode(client, r, 'a list of a built-in kind is served in Protobuf');
      check(
        envelope.kind === 'ConfigMapList' && envelope.apiVersion === 'v1',
        'typeMeta v1/ConfigMapList',
        show(envelope),
      );
      const listed: string[] = (object.items ?? []).map((i: any) => i.metadata?.name);
      const missing = names.filter((n) => !listed.includes(n));
      check(missing.length === 0, `items including ${show(names)}`, show(listed));
      check(
        typeof object.metadata?.resourceVersion === 'string' && object.metadata.resourceVersion !== '',
        'a ListMeta resourceVersion',
        show(object.metadata),
      );
      const byName = Object.fromEntries(
        (object.items ?? []).map((i: any) => [i.metadata?.name, strMap(i.data)]),
      );
      for (const [i, n] of names.entries())
        check(
          sameJson(byName[n], { i: String(i) }),
          show({ i: String(i) }),
          show(byName[n]),
          `the data of ${n}`,
        );
    },
  );

  conformance(
    {
      id: 'content-types/protobuf/namespace',
      title: 'A Namespace (cluster-scoped, built-in) is served in Protobuf with typeMeta v1/Namespace',
      doc: 1,
      section: ENVELOPE,
      place: ENVELOPE_ROW,
      specRules: [
        'doc1/resources-their-fields/prefix-4-bytes-0x6b-0x38-0x73',
        'doc1/resources-their-fields/message-unknown-typemeta-field-1-message',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const r = await client.get(paths.namespace(ns.name), { accept: PROTOBUF_TYPE });
      checkStatus(r, 200);
      const { envelope, object } = decode(client, r, 'a built-in kind is served in Protobuf');
      check(
        envelope.apiVersion === 'v1' && envelope.kind === 'Namespace',
        'typeMeta v1/Namespace',
        show(envelope),
      );
      check(object.metadata?.name === ns.name, `metadata.name ${ns.name}`, show(object.metadata));
    },
  );

  conformance(
    {
      id: 'content-types/protobuf/error-status',
      title:
        'An error asked for in Protobuf comes as a Protobuf envelope holding a v1 Status with the code (as Kubernetes does)',
      doc: 1,
      section: 'Errors',
      place:
        'The JSON shape of an error body: not shown (Kubernetes sends a Status in the negotiated media type)',
      level: 'BEYOND',
    },
    async ({ client }) => {
      const r = await client.get(paths.configmap(ns.name, uniqueName('missing')), { accept: PROTOBUF_TYPE });
      checkStatus(r, 404);
      const { envelope, object } = decode(client, r, 'the error Status in Protobuf');
      check(envelope.kind === 'Status' && envelope.apiVersion === 'v1', 'typeMeta v1/Status', show(envelope));
      check(
        object.code === 404 && object.reason === 'NotFound',
        'Status code 404, reason NotFound',
        show(object),
      );
    },
  );

  conformance(
    {
      id: 'content-types/protobuf/request-body',
      title:
        'A POST may send a Protobuf body (prefix and envelope) and ask for JSON: the object is created and answered in JSON',
      doc: 1,
      section: SECTION,
      place: 'A request may send Protobuf and ask for JSON',
      specRules: ['doc1/headers-content-negotiation/request-may-send-protobuf-ask-json'],
      level: 'MUST',
    },
    async ({ client }) => {
      const name = uniqueName('pbin');
      const body = encodeObject(configMap(name, { from: 'protobuf', n: '7' }));
      const r = await client.post(paths.configmaps(ns.name), body, {
        contentType: PROTOBUF_TYPE,
        accept: 'application/json',
      });
      checkStatus(r, 201);
      check(
        baseType(r) === 'application/json',
        'Content-Type: application/json',
        `Content-Type: ${r.header('content-type')}`,
      );
      check(r.json?.metadata?.name === name, `the ConfigMap ${name}`, r.describe());
      check(
        sameJson(strMap(r.json?.data), { from: 'protobuf', n: '7' }),
        '{"from":"protobuf","n":"7"}',
        show(r.json?.data),
      );
      const g = await client.get(paths.configmap(ns.name, name));
      checkStatus(g, 200, undefined, 'the object was created');
    },
  );

  conformance(
    {
      id: 'content-types/protobuf/preferred',
      title: 'Accept listing Protobuf first and JSON second gets Protobuf for a built-in kind',
      doc: 1,
      section: SECTION,
      place: '`Accept` | Preferred media type',
      specRules: ['doc1/headers-content-negotiation/accept-preferred-media-type-default-application'],
      level: 'SHOULD',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const r = await client.get(cm.path, { accept: `${PROTOBUF_TYPE}, application/json` });
      checkStatus(r, 200);
      const { object } = decode(client, r, 'the preferred (first) type is available, so it is used');
      check(object.metadata?.name === cm.name, `the ConfigMap ${cm.name}`, show(object.metadata));
    },
  );

  conformance(
    {
      id: 'content-types/fallback/json-for-custom',
      title:
        'Accept listing Protobuf then JSON gets JSON for a custom resource (Protobuf is not available for it)',
      doc: 1,
      section: SECTION,
      place: MEDIA_TYPES,
      specRules: ['doc1/headers-content-negotiation/media-types-application-json-supported-all'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (cr.reason) skip(cr.reason);
      const name = uniqueName('w');
      checkStatus(
        await client.post(cr.collection(ns.name), cr.object(name, { a: 1 })),
        201,
        undefined,
        'setup: create the custom resource',
      );
      for (const path of [cr.one(ns.name, name), cr.collection(ns.name)]) {
        const r = await client.get(path, { accept: `${PROTOBUF_TYPE}, application/json` });
        checkStatus(r, 200, undefined, `GET ${path}`);
        check(
          baseType(r) === 'application/json',
          'Content-Type: application/json (the fallback)',
          `Content-Type: ${r.header('content-type')}`,
        );
        check(r.json !== undefined && typeof r.json.kind === 'string', 'a JSON object', r.describe());
      }
    },
  );

  conformance(
    {
      id: 'content-types/406/protobuf-only-custom',
      title: 'Accept naming only Protobuf for a custom resource is answered 406',
      doc: 1,
      section: SECTION,
      place: 'When no requested media type is supported the reply is 406',
      specRules: [
        'doc1/headers-content-negotiation/when-no-requested-media-type-supported',
        'doc1/errors/406-none-requested-media-types-supported',
      ],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (cr.reason) skip(cr.reason);
      const name = uniqueName('w');
      checkStatus(
        await client.post(cr.collection(ns.name), cr.object(name, { a: 1 })),
        201,
        undefined,
        'setup: create the custom resource',
      );
      checkStatus(await client.get(cr.one(ns.name, name), { accept: PROTOBUF_TYPE }), 406, undefined, 'get');
      checkStatus(
        await client.get(cr.collection(ns.name), { accept: PROTOBUF_TYPE }),
        406,
        undefined,
        'list',
      );
    },
  );

  conformance(
    {
      id: 'content-types/406/unknown-type',
      title: 'Accept naming only a media type the server does not know is answered 406',
      doc: 1,
      section: SECTION,
      place: 'When no requested media type is supported the reply is 406',
      specRules: [
        'doc1/headers-content-negotiation/when-no-requested-media-type-supported',
        'doc1/errors/406-none-requested-media-types-supported',
      ],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name);
      checkStatus(await client.get(cm.path, { accept: 'application/x-conformance-unknown' }), 406);
    },
  );
});
