// The subject names of a certificate the certificate methods read: the common name (the last
// CN attribute, when several) and every organization (O), in order.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

export interface Subject {
  commonName: string;
  organizations: string[];
}

export function subjectOf(der: Buffer): Subject {
  const name = new x509.X509Certificate(new Uint8Array(der)).subjectName;
  const cns = name.getField('CN');
  return { commonName: cns.at(-1) ?? '', organizations: name.getField('O') };
}
