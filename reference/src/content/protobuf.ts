// The Protobuf representation: the 4-byte prefix, then an `Unknown` message wrapping the
// object encoded with Kubernetes' field numbers. Kinds with an encoding are listed in
// PROTOBUF_KINDS; everything else (custom resources included) is JSON only.
import type { KObject } from '../storage/types.ts';

export const PREFIX = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** `<apiVersion>/<kind>` pairs that have a Protobuf encoding. */
export const PROTOBUF_KINDS = new Set<string>();

export function hasProtobuf(apiVersion: string, kind: string): boolean {
  return PROTOBUF_KINDS.has(`${apiVersion}/${kind}`);
}

export function encodeProtobuf(_obj: KObject | Record<string, unknown>): Buffer {
  throw new Error('protobuf encoding is not available');
}

export function decodeProtobuf(_buf: Buffer): KObject {
  throw new Error('protobuf decoding is not available');
}

/** A watch event in the Protobuf stream form (4-byte big-endian length, then the message). */
export function encodeProtobufWatchEvent(_type: string, _obj: Record<string, unknown>): Buffer {
  throw new Error('protobuf encoding is not available');
}
