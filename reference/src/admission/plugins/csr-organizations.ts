// The organizations (O) a certificate signing request's subject names, read with
// @peculiar/x509: CertificateSubjectRestriction loads this module at the first request for
// the API server's client signer. A request that does not parse names none.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

const ORGANIZATION = '2.5.4.10';

export function organizations(requestBase64: unknown): string[] {
  if (typeof requestBase64 !== 'string') return [];
  try {
    const req = new x509.Pkcs10CertificateRequest(Buffer.from(requestBase64, 'base64').toString('latin1'));
    return req.subjectName.getField(ORGANIZATION);
  } catch {
    return [];
  }
}
