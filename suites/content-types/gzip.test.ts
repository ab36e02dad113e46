// doc1 § Headers and content negotiation: `Accept-Encoding: gzip` gives response compression for
// get and list, and the reply carries `content-encoding: gzip` (on by default). The suite's client
// does not decompress, so the case sees the bytes as sent.
import { gunzipSync } from 'node:zlib';
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Response } from '../../harness/src/client.ts';
import { paths, useNamespace } from '../../harness/src/fixtures.ts';
import { decodeObject, PROTOBUF_TYPE } from '../../harness/src/protobuf.ts';
import { makeConfigMap, sameJson, showSorted, strMap } from '../patch/support.ts';

const SECTION = 'Headers and content negotiation';
const ROW =
  '`Accept-Encoding: gzip` | Response compression for get and list; reply carries `content-encoding: gzip`';
const GZIP = { 'accept-encoding': 'gzip' };

/** The reply is gzip-compressed (header and bytes); returns the decompressed body. */
function gunzipped(r: Response, why: string): Buffer {
  const ce = (r.header('content-encoding') ?? '').toLowerCase();
  check(ce === 'gzip', 'content-encoding: gzip', `content-encoding: ${ce || '(none)'}`, why);
  check(
    r.body[0] === 0x1f && r.body[1] === 0x8b,
    'a gzip body (starting 1f 8b)',
    `a body starting ${r.body.subarray(0, 2).toString('hex')}: ${show(r.text.slice(0, 60))}`,
    why,
  );
  try {
    return gunzipSync(r.body);
  } catch (e) {
    check(false, 'a body that decompresses', (e as Error).message, why);
  }
}

const json = (b: Buffer) => JSON.parse(b.toString('utf8'));

describe('content-types: gzip', () => {
  const ns = useNamespace('ct-gzip');

  conformance(
    {
      id: 'content-types/gzip/get',
      title:
        'A GET with Accept-Encoding: gzip is answered with content-encoding: gzip and decompresses to the object',
      doc: 1,
      section: SECTION,
      place: ROW,
      specRules: ['doc1/headers-content-negotiation/accept-encoding-gzip-response-compression-get'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1', text: 'x'.repeat(50) } });
      const r = await client.get(cm.path, { headers: GZIP });
      checkStatus(r, 200);
      const obj = client.d.in(json(gunzipped(r, 'get asked for gzip')));
      const plain = await client.get(cm.path);
      checkStatus(plain, 200, undefined, 'the same object without compression');
      check(
        sameJson(obj, plain.json),
        showSorted(plain.json),
        showSorted(obj),
        'the decompressed body is the object',
      );
      check(
        obj.metadata?.uid === cm.uid && sameJson(strMap(obj.data), { a: '1', text: 'x'.repeat(50) }),
        `the ConfigMap ${cm.name}`,
        show(obj),
      );
    },
  );

  conformance(
    {
      id: 'content-types/gzip/list',
      title:
        'A list with Accept-Encoding: gzip is answered with content-encoding: gzip and decompresses to the list',
      doc: 1,
      section: SECTION,
      place: ROW,
      specRules: ['doc1/headers-content-negotiation/accept-encoding-gzip-response-compression-get'],
      level: 'MUST',
    },
    async ({ client }) => {
      const made = [
        await makeConfigMap(client, ns.name, { data: { i: '0' } }),
        await makeConfigMap(client, ns.name, { data: { i: '1' } }),
      ];
      const r = await client.get(paths.configmaps(ns.name), { headers: GZIP });
      checkStatus(r, 200);
      const list = client.d.in(json(gunzipped(r, 'list asked for gzip')));
      check(list.kind === 'ConfigMapList', 'kind ConfigMapList', show(list.kind));
      const names: string[] = (list.items ?? []).map((i: any) => i.metadata?.name);
      const missing = made.filter((m) => !names.includes(m.name)).map((m) => m.name);
      check(missing.length === 0, `items including ${show(made.map((m) => m.name))}`, show(names));
    },
  );

  conformance(
    {
      id: 'content-types/gzip/protobuf',
      title: 'A Protobuf GET with Accept-Encoding: gzip decompresses to the Protobuf envelope of the object',
      doc: 1,
      section: SECTION,
      place: ROW,
      specRules: ['doc1/headers-content-negotiation/accept-encoding-gzip-response-compression-get'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const r = await client.get(cm.path, { headers: GZIP, accept: PROTOBUF_TYPE });
      checkStatus(r, 200);
      const body = gunzipped(r, 'get asked for gzip');
      let name: unknown;
      try {
        name = decodeObject(body).object.metadata?.name;
      } catch (e) {
        check(false, 'the Protobuf envelope of the ConfigMap', (e as Error).message);
      }
      check(name === cm.name, `the ConfigMap ${cm.name}`, show(name));
    },
  );

  conformance(
    {
      id: 'content-types/gzip/not-asked',
      title: 'Without Accept-Encoding: gzip the reply is not compressed',
      doc: 1,
      section: SECTION,
      place: ROW,
      specRules: ['doc1/headers-content-negotiation/accept-encoding-gzip-response-compression-get'],
      level: 'SHOULD',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const r = await client.get(cm.path);
      checkStatus(r, 200);
      const ce = (r.header('content-encoding') ?? '').toLowerCase();
      check(ce === '' || ce === 'identity', 'no content-encoding', `content-encoding: ${ce}`);
      check(r.json?.metadata?.name === cm.name, 'the plain JSON object', r.describe());
    },
  );
});
