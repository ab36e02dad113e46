// Decoding an answer's body in the content type it names: JSON (a document, or a watch stream
// of one event a line), YAML, Protobuf (an envelope, or a watch stream of length-prefixed
// frames); gzip first when the answer says so. Other types (text, the OpenAPI documents'
// Protobuf) are not decoded.
import { gunzipSync } from 'node:zlib';
import { parse as parseYaml } from 'yaml';
import {
  decodeProtobuf,
  decodeProtobufWatchEvent,
  splitWatchFrames,
} from '../../../reference/src/content/protobuf.ts';
import type { Answer } from './send.ts';

export type Decoded =
  | { form: 'document'; value: any }
  | { form: 'events'; events: { type: string; object: any }[] }
  | { form: 'opaque' };

function bodyOf(a: Answer): Buffer {
  return /gzip/i.test(a.headers['content-encoding'] ?? '') ? gunzipSync(a.body) : a.body;
}

/** Throws when the body does not parse as its content type says. */
export function decodeAnswer(a: Answer): Decoded {
  const ct = (a.headers['content-type'] ?? '').toLowerCase();
  const stream = a.streamCut || /chunked/i.test(a.headers['transfer-encoding'] ?? '');
  const buf = bodyOf(a);
  if (ct.startsWith('application/vnd.orch.protobuf')) {
    if (/stream=watch/.test(ct)) {
      const { frames } = splitWatchFrames(buf);
      return { form: 'events', events: frames.map((f) => decodeProtobufWatchEvent(f)) };
    }
    return { form: 'document', value: decodeProtobuf(buf) };
  }
  if (ct.startsWith('application/json')) {
    const text = buf.toString('utf8');
    if (stream && a.status === 200 && (a.streamCut || /^\{"type":/.test(text))) {
      // a watch: one event per line; a cut stream's last line may be partial
      const lines = text.split('\n');
      if (a.streamCut) lines.pop();
      return { form: 'events', events: lines.filter((l) => l.trim()).map((l) => JSON.parse(l)) };
    }
    return { form: 'document', value: JSON.parse(text) };
  }
  // duplicate keys are not looked for: the library's check is quadratic in a mapping's keys,
  // minutes for an object of 50,000 (which the fuzzer makes)
  if (ct.startsWith('application/yaml'))
    return { form: 'document', value: parseYaml(buf.toString('utf8'), { uniqueKeys: false }) };
  return { form: 'opaque' };
}
