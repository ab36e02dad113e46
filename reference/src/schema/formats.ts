// The string formats of OpenAPI schemas that value validation (./validate.ts) checks.

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h|d|w)\s*)+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UUID = /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/;
const HOSTNAME = /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,62})?)*\.?$/;
const IPV4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1) return false;
  const days = [
    31,
    (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28,
    31,
    30,
    31,
    30,
    31,
    31,
    30,
    31,
    30,
    31,
  ];
  return d <= days[m - 1]!;
}

function isIPv6(s: string): boolean {
  if (!s.includes(':')) return false;
  try {
    return new URL(`http://[${s}]/`).hostname.length > 0;
  } catch {
    return false;
  }
}

/** Whether a string satisfies a format; unknown formats pass (as in kube-openapi). */
export function stringFormatOk(format: string, s: string): boolean {
  switch (format) {
    case 'byte':
      return BASE64.test(s);
    case 'date': {
      const m = DATE.exec(s);
      return !!m && validDate(Number(m[1]), Number(m[2]), Number(m[3]));
    }
    case 'date-time':
    case 'datetime': {
      const m = DATE_TIME.exec(s);
      return (
        !!m &&
        validDate(Number(m[1]), Number(m[2]), Number(m[3])) &&
        Number(m[4]) < 24 &&
        Number(m[5]) < 60 &&
        Number(m[6]) < 61
      );
    }
    case 'duration':
      return DURATION.test(s.trim()) && s.trim() !== '';
    case 'uuid':
    case 'uuid3':
    case 'uuid4':
    case 'uuid5':
      return UUID.test(s);
    case 'hostname':
      return s.length <= 255 && HOSTNAME.test(s);
    case 'ipv4':
      return IPV4.test(s);
    case 'ipv6':
      return isIPv6(s);
    case 'cidr': {
      const [ip, bits, ...rest] = s.split('/');
      if (rest.length || bits === undefined || !/^\d+$/.test(bits)) return false;
      if (IPV4.test(ip!)) return Number(bits) <= 32;
      return isIPv6(ip!) && Number(bits) <= 128;
    }
    case 'mac':
      return MAC.test(s);
    case 'email':
      return EMAIL.test(s);
    case 'uri':
      try {
        return !!new URL(s).protocol;
      } catch {
        return false;
      }
    default:
      return true;
  }
}
