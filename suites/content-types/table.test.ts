// doc1 § Resources and their fields (Table representation) and § Headers and content negotiation
// (the Table media type, with application/json as second choice).
import { describe } from 'vitest';
import { check, checkStatus, show } from '../../harness/src/assert.ts';
import { conformance } from '../../harness/src/case.ts';
import type { Client, Response } from '../../harness/src/client.ts';
import { paths, uniqueName, useNamespace } from '../../harness/src/fixtures.ts';
import { type PrinterColumn, useCustomResource } from '../patch/custom-resource.ts';
import { makeConfigMap } from '../patch/support.ts';

const TABLE = 'application/json;as=Table;g=meta.orch.io;v=v1';
const FIELDS = 'Resources and their fields';
const TABLE_ROW =
  'Table representation: `kind` = `Table`, `apiVersion` = `meta.orch.io/v1`, `columnDefinitions` (array of objects each with `name` and `type`)';
const DEFAULT_ROW =
  'A type without a custom table definition returns two columns: `Name` (type `string`, from the name field) and `Created At` (type `date`, from creationTimestamp)';

const COLUMNS: PrinterColumn[] = [
  { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
  { name: 'Color', type: 'string', jsonPath: '.spec.color' },
];

const columns = (r: Response) =>
  (Array.isArray(r.json?.columnDefinitions) ? r.json.columnDefinitions : []).map((c: any) => ({
    name: c?.name,
    type: c?.type,
  }));

/** The answer is a Table: kind, apiVersion, and column definitions that are objects with name and type. */
function checkTable(r: Response, why?: string): void {
  checkStatus(r, 200, undefined, why);
  const j = r.json;
  check(
    j?.kind === 'Table' && j?.apiVersion === 'meta.orch.io/v1',
    'kind "Table", apiVersion "meta.orch.io/v1"',
    `kind ${show(j?.kind)}, apiVersion ${show(j?.apiVersion)}`,
    why,
  );
  const defs = j?.columnDefinitions;
  check(
    Array.isArray(defs) &&
      defs.every((c: any) => c && typeof c.name === 'string' && typeof c.type === 'string'),
    'columnDefinitions: an array of objects each with a string name and type',
    show(defs),
    why,
  );
}

async function getTable(client: Client, path: string, accept = TABLE): Promise<Response> {
  return client.get(path, { accept });
}

describe('content-types: Table', () => {
  const ns = useNamespace('ct-table');
  const plain = useCustomResource('cttab', { spec: 'preserve' });
  const printed = useCustomResource('ctcol', { spec: 'closed', printerColumns: COLUMNS });

  conformance(
    {
      id: 'content-types/table/default-columns',
      title:
        'A Table of a custom resource without printer columns (get and list) has exactly the columns Name (string) and Created At (date)',
      doc: 1,
      section: FIELDS,
      place: DEFAULT_ROW,
      specRules: ['doc1/resources-their-fields/type-without-custom-table-definition-returns'],
      level: 'MUST',
    },
    async ({ client, skip }) => {
      if (plain.reason) skip(plain.reason);
      const name = uniqueName('w');
      checkStatus(
        await client.post(plain.collection(ns.name), plain.object(name, { a: 1 })),
        201,
        undefined,
        'setup: create the custom resource',
      );
      const want = [
        { name: 'Name', type: 'string' },
        { name: 'Created At', type: 'date' },
      ];
      for (const path of [plain.one(ns.name, name), plain.collection(ns.name)]) {
        const r = await getTable(client, path);
        checkTable(r, `GET ${path}`);
        check(
          show(columns(r)) === show(want),
          show(want),
          show(columns(r)),
          `GET ${path}: the two default columns`,
        );
      }
    },
  );

  conformance(
    {
      id: 'content-types/table/own-columns',
      title:
        "A Table of a custom resource with printer columns has Name followed by the definition's own columns (as Kubernetes does)",
      doc: 1,
      section: FIELDS,
      place:
        'Other Table fields such as rows and further column attributes: not shown (Kubernetes: Name, then the additionalPrinterColumns in order)',
      level: 'BEYOND',
    },
    async ({ client, skip }) => {
      if (printed.reason) skip(printed.reason);
      const name = uniqueName('w');
      checkStatus(
        await client.post(printed.collection(ns.name), printed.object(name, { size: 3, color: 'red' })),
        201,
        undefined,
        'setup: create the custom resource',
      );
      const r = await getTable(client, printed.collection(ns.name));
      checkTable(r);
      const want = [
        { name: 'Name', type: 'string' },
        ...COLUMNS.map((c) => ({ name: c.name, type: c.type })),
      ];
      check(
        show(columns(r)) === show(want),
        show(want),
        show(columns(r)),
        "the kind's own columns, not the default pair",
      );
    },
  );

  conformance(
    {
      id: 'content-types/table/shape-builtin',
      title:
        'A Table of ConfigMaps is kind Table, apiVersion meta.orch.io/v1, with column definitions that have a name and a type, Name among them',
      doc: 1,
      section: FIELDS,
      place: TABLE_ROW,
      specRules: ['doc1/resources-their-fields/table-representation-kind-table-apiversion-meta'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      for (const path of [cm.path, paths.configmaps(ns.name)]) {
        const r = await getTable(client, path);
        checkTable(r, `GET ${path}`);
        check(
          columns(r).some((c: any) => c.name === 'Name'),
          'a Name column',
          show(columns(r)),
          `GET ${path}`,
        );
      }
    },
  );

  conformance(
    {
      id: 'content-types/table/json-second-choice',
      title:
        'Accept listing the Table type then application/json is answered 200 with a Table (or, where a Table is not offered, the JSON object)',
      doc: 1,
      section: 'Headers and content negotiation',
      place:
        'Table: `application/json;as=Table;g=meta.orch.io;v=v1` (a client that must work with all types adds `application/json` as a second choice)',
      specRules: ['doc1/headers-content-negotiation/media-types-application-json-supported-all'],
      level: 'MUST',
    },
    async ({ client }) => {
      const cm = await makeConfigMap(client, ns.name, { data: { a: '1' } });
      const targets = [cm.path];
      if (!plain.reason) {
        const name = uniqueName('w');
        checkStatus(
          await client.post(plain.collection(ns.name), plain.object(name, { a: 1 })),
          201,
          undefined,
          'setup',
        );
        targets.push(plain.one(ns.name, name));
      }
      for (const path of targets) {
        const r = await getTable(client, path, `${TABLE}, application/json`);
        checkStatus(r, 200, undefined, `GET ${path}`);
        if (r.json?.kind === 'Table') checkTable(r, `GET ${path}`);
        else
          check(
            typeof r.json?.metadata?.name === 'string',
            'a Table, or the object as JSON',
            r.describe(),
            `GET ${path}: application/json is an acceptable second choice`,
          );
      }
    },
  );
});
