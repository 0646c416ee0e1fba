import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway certificate authority and one server certificate it signed for 127.0.0.1. */
export interface TestTls {
  /** PEM file of the CA: give it to a child process as NODE_EXTRA_CA_CERTS. */
  readonly caFile: string;
  readonly key: Buffer;
  readonly cert: Buffer;
  remove(): void;
}

/** Makes a fresh CA and a server certificate with the `openssl` command, valid for a day. */
export function makeTestTls(): TestTls {
  const dir = mkdtempSync(join(tmpdir(), 'pressroom-tls-'));
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', at('ca.key'), '-out', at('ca.pem'), '-days', '1', '-subj', '/CN=pressroom test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign');
  openssl('req', ...ec, '-keyout', at('server.key'), '-out', at('server.csr'), '-subj', '/CN=127.0.0.1');
  writeFileSync(at('server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl('x509', '-req', '-in', at('server.csr'), '-CA', at('ca.pem'), '-CAkey', at('ca.key'), '-CAcreateserial', '-out', at('server.pem'), '-days', '1', '-extfile', at('server.ext'));
  return {
    caFile: at('ca.pem'),
    key: readFileSync(at('server.key')),
    cert: readFileSync(at('server.pem')),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
