// Self-test of the suite's Protobuf codec (harness/src/protobuf.ts), no endpoint involved: it
// round-trips the envelope and rejects content lacking the prefix, as doc1 requires of a
// client ("A client that receives Protobuf content lacking the prefix must reject the
// response"). The content-types cases rely on both.
import { describe, expect, test } from 'vitest';
import {
  decodeEnvelope,
  decodeObject,
  encodeEnvelope,
  encodeObject,
  PROTOBUF_PREFIX,
  ProtobufDecodeError,
} from '../src/protobuf.ts';

describe('harness Protobuf codec (self-test)', () => {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', namespace: 'ns', labels: { a: 'b' }, creationTimestamp: '2024-01-02T03:04:05Z' },
    data: { k: 'v' },
  };

  test('the prefix is 6b 38 73 00 and a round trip gives the object back', () => {
    const b = encodeObject(cm);
    expect([...b.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const { envelope, object } = decodeObject(b);
    expect(envelope).toMatchObject({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      contentEncoding: undefined,
      contentType: undefined,
    });
    expect(object).toEqual(cm);
  });

  test('content lacking the prefix is rejected', () => {
    const b = encodeObject(cm);
    expect(() => decodeEnvelope(b.subarray(4))).toThrow(ProtobufDecodeError);
    expect(() => decodeObject(b.subarray(4))).toThrow(/lacks the prefix/);
    expect(() => decodeEnvelope(Buffer.from('{"kind":"ConfigMap"}'))).toThrow(ProtobufDecodeError);
    expect(() => decodeEnvelope(Buffer.alloc(0))).toThrow(ProtobufDecodeError);
    expect(() => decodeEnvelope(Buffer.from([0x6b, 0x38, 0x73]))).toThrow(ProtobufDecodeError);
  });

  test('the envelope fields use numbers 1 to 4 (typeMeta, raw, contentEncoding, contentType)', () => {
    const b = encodeEnvelope({
      apiVersion: 'v1',
      kind: 'K',
      raw: Buffer.from([1, 2]),
      contentEncoding: 'e',
      contentType: 't',
    });
    const body = b.subarray(PROTOBUF_PREFIX.length);
    // field 1 (typeMeta, length-delimited) opens the message: tag 0x0a
    expect(body[0]).toBe(0x0a);
    const tags = new Set<number>();
    for (let i = 0; i < body.length; ) {
      const tag = body[i]!;
      tags.add(tag >> 3);
      const len = body[i + 1]!;
      i += 2 + len;
    }
    expect([...tags]).toEqual([1, 2, 3, 4]);
    expect(decodeEnvelope(b)).toEqual({
      apiVersion: 'v1',
      kind: 'K',
      raw: Buffer.from([1, 2]),
      contentEncoding: 'e',
      contentType: 't',
    });
  });

  test('a kind the suite has no message for is refused, not misread', () => {
    const b = encodeEnvelope({ apiVersion: 'v1', kind: 'Unheard', raw: Buffer.from([8, 1]) });
    expect(() => decodeObject(b)).toThrow(ProtobufDecodeError);
  });
});
