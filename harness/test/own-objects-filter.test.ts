// OwnObjects tells a case's objects (names it wrote, in its namespace) from others in list items
// and watch events; events that name no object (BOOKMARK, an ERROR's Status) stay in a stream.
import { describe, expect, it } from 'vitest';
import { OwnObjects } from '../src/own-objects.ts';

const cm = (name: string, namespace = 'ns') => ({ kind: 'ConfigMap', metadata: { name, namespace } });

describe('OwnObjects', () => {
  const own = new OwnObjects('ns').add('a', 'b');

  it("keeps the case's items in their order, and names the others", () => {
    const items = [cm('0-other'), cm('b'), cm('a'), cm('orch-root-ca.crt'), cm('a', 'elsewhere')];
    expect(own.items(items).map((o) => o.metadata.name)).toEqual(['b', 'a']);
    expect(own.foreign(items)).toEqual(['0-other', 'orch-root-ca.crt', 'a']);
    expect(own.items(undefined)).toEqual([]);
  });

  it('keeps the events of its objects and those about the stream', () => {
    const events = [
      { type: 'ADDED', object: cm('orch-root-ca.crt') },
      { type: 'ADDED', object: cm('a') },
      { type: 'BOOKMARK', object: { kind: 'ConfigMap', metadata: { resourceVersion: '9' } } },
      { type: 'DELETED', object: { metadata: { name: 'b' } } },
      { type: 'ERROR', object: { kind: 'Status', code: 410 } },
      { type: 'MODIFIED', object: cm('c') },
    ];
    expect(own.events(events).map((e) => e.type)).toEqual(['ADDED', 'BOOKMARK', 'DELETED', 'ERROR']);
  });
});
