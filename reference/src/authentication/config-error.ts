// A configuration of the authentication methods that cannot be used (an unreadable or
// malformed file, a flag that needs another): the server does not start, and the message
// names the flag, the file and, where there is one, the line.
export class AuthenticationConfigError extends Error {
  override readonly name = 'AuthenticationConfigError';
}
