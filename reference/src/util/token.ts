// A new secret token: 24 random bytes, hex-encoded (48 characters). Hex rather than base64url,
// which may begin with '-' and then reads as an option on a command line (`--token -Xy...`).
import { randomBytes } from 'node:crypto';

export function newToken(): string {
  return randomBytes(24).toString('hex');
}
