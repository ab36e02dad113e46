// Running one case of the language's conformance data (@bufbuild/cel-spec, the cel-spec
// project's simple tests) on the orch expression engine: declare its variables, compile, type
// check unless the case says not to, evaluate, compare with the expected value or error.
import { Duration } from '@marcbachmann/cel-js/evaluator';
import { compile } from '../src/cel/compile.ts';
import { PER_CALL_LIMIT } from '../src/cel/cost.ts';
import { newEnvironment } from '../src/cel/environment.ts';
import { celEquals } from '../src/cel/equality.ts';
import { CostTracker } from '../src/cel/runtime-cost.ts';

type Json = any;

export interface ConformanceCase {
  name: string;
  expr: string;
  value?: Json;
  evalError?: Json;
  typeEnv?: Json[];
  bindings?: Record<string, Json>;
  disableCheck?: boolean;
  container?: string;
  checkOnly?: boolean;
  typedResult?: Json;
}

/** Why a case cannot run on this engine at all (the case needs protobuf messages, ...), else undefined. */
export function inapplicable(c: ConformanceCase): string | undefined {
  if (c.container) return 'protobuf container (orch declares schema types, not protobuf packages)';
  if (c.typedResult || c.checkOnly) return 'type-check-only case (compares checker output types)';
  const text = JSON.stringify(c);
  if (/objectValue|messageType|google\.protobuf\.(Any|Struct|Value|ListValue|.*Value\b)|enumValue/.test(text))
    return 'protobuf messages, wrappers or enums';
  for (const t of c.typeEnv ?? []) if (!typeName(t.ident?.type)) return 'variable of a protobuf type';
  return undefined;
}

function typeName(t: Json): string | undefined {
  if (!t) return 'dyn';
  if (t.primitive)
    return (
      {
        INT64: 'int',
        UINT64: 'uint',
        DOUBLE: 'double',
        STRING: 'string',
        BOOL: 'bool',
        BYTES: 'bytes',
      } as Record<string, string>
    )[t.primitive];
  if (t.dyn !== undefined) return 'dyn';
  if (t.listType) {
    const e = typeName(t.listType.elemType);
    return e && `list<${e}>`;
  }
  if (t.mapType) {
    const k = typeName(t.mapType.keyType);
    const v = typeName(t.mapType.valueType);
    return k && v && `map<${k}, ${v}>`;
  }
  if (t.wellKnown === 'TIMESTAMP') return 'google.protobuf.Timestamp';
  if (t.wellKnown === 'DURATION') return 'google.protobuf.Duration';
  if (t.null !== undefined) return 'null';
  return undefined;
}

/** An expected value (cel.expr.Value in JSON) as the engine represents it. */
export function fromValue(v: Json): unknown {
  if ('int64Value' in v) return BigInt(v.int64Value);
  if ('uint64Value' in v) return { uint: BigInt(v.uint64Value) };
  if ('doubleValue' in v)
    return typeof v.doubleValue === 'string'
      ? Number(v.doubleValue.replace('Infinity', 'Infinity'))
      : v.doubleValue;
  if ('stringValue' in v) return v.stringValue;
  if ('boolValue' in v) return v.boolValue;
  if ('nullValue' in v) return null;
  if ('bytesValue' in v) return new Uint8Array(Buffer.from(v.bytesValue, 'base64'));
  if ('listValue' in v) return (v.listValue.values ?? []).map(fromValue);
  if ('mapValue' in v)
    return new Map((v.mapValue.entries ?? []).map((e: Json) => [fromValue(e.key), fromValue(e.value)]));
  if ('typeValue' in v) return { type: v.typeValue };
  if (Object.keys(v).length === 0) return null;
  return { unsupported: v };
}

/** The same value with int and double told apart (the language's equality would not). */
function sameKind(a: unknown, b: unknown): boolean {
  if (typeof a !== typeof b) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.every((x, i) => sameKind(x, b[i]));
  return true;
}

export type Outcome = { pass: true } | { pass: false; got: string };

function show(v: unknown): string {
  return (
    JSON.stringify(v, (_k, x) =>
      typeof x === 'bigint' ? `${x}n` : x instanceof Map ? Object.fromEntries(x) : x,
    ) ?? String(v)
  );
}

export function runCase(c: ConformanceCase): Outcome {
  const env = newEnvironment();
  const vars: Record<string, unknown> = {};
  for (const t of c.typeEnv ?? []) env.registerVariable(t.name, typeName(t.ident?.type)!);
  for (const [k, b] of Object.entries(c.bindings ?? {})) {
    if (!(c.typeEnv ?? []).some((t) => t.name === k)) env.registerVariable(k, 'dyn');
    vars[k] = fromValue(b.value ?? {});
  }
  const compiled = compile(env, c.expr, new Map());
  if ('error' in compiled) {
    if (c.evalError) return { pass: true };
    return { pass: false, got: compiled.error };
  }
  let result: unknown;
  try {
    result = compiled.program.evaluate(vars, new CostTracker(PER_CALL_LIMIT * 100));
  } catch (e) {
    if (c.evalError) return { pass: true };
    return { pass: false, got: `error: ${(e as Error).message}` };
  }
  if (c.evalError) return { pass: false, got: `value ${show(result)} where an error is expected` };
  // a case that names no result expects true (cel-spec's SimpleTest default)
  const want = c.value === undefined ? true : fromValue(c.value);
  if (matches(result, want)) return { pass: true };
  return { pass: false, got: show(result) };
}

function matches(got: unknown, want: unknown): boolean {
  if (want && typeof want === 'object' && 'uint' in (want as object))
    return (
      got !== null &&
      typeof got === 'object' &&
      'value' in (got as object) &&
      (got as { value: bigint }).value === (want as { uint: bigint }).uint
    );
  if (want && typeof want === 'object' && 'type' in (want as object))
    return (
      String(got) === (want as { type: string }).type ||
      (got as { name?: string })?.name === (want as { type: string }).type
    );
  if (typeof want === 'number' && Number.isNaN(want)) return typeof got === 'number' && Number.isNaN(got);
  if (got instanceof Duration || got instanceof Date) return false;
  return celEquals(got, want) && sameKind(got, want);
}
