// A request's method in capitals and in small letters. Node's HTTP parser hands the methods it
// knows in capitals, as constants: those are looked up, not converted (a conversion is a call
// into V8's runtime, several a request). Any other spelling is converted.

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE'];
const UPPER = new Map(METHODS.map((m) => [m, m]));
const LOWER = new Map(METHODS.map((m) => [m, m.toLowerCase()]));

/** The method in capitals (GET when the request has none). */
export function upperMethod(method: string | undefined): string {
  const m = method ?? 'GET';
  return UPPER.get(m) ?? m.toUpperCase();
}

/** The method in small letters. */
export function lowerMethod(method: string): string {
  return LOWER.get(method) ?? method.toLowerCase();
}
