// The signature on a dynamic QR code's payload: what the location answers (`application/jose`) is a
// compact JWS of the payload JSON (payload.ts), signed with the service's RSA key
// (server/domain/pix-signing-key.ts). Its protected header names the key as the BCB's security manual
// asks of a PSP: `kid`, and `jku`, the URL of the JWKS the service publishes with that key, which the
// payer's bank fetches to verify; with a configured certificate also `x5t`, and the JWKS carries the
// chain (`x5c`) for the bank to check whose key it is. `typ` "JWS" as the yaml's own sample header writes it.
import { createHash } from 'node:crypto';
import { CompactSign } from 'jose';
import type { PixSigningKey } from '../pix-signing-key';
import type { CobPayload, CobVPayload } from './payload';

/** RSASSA-PSS with SHA-256: one of the two the manual admits (PS256, RS256); PSS is the newer scheme. */
export const PAYLOAD_JWS_ALG = 'PS256';

/** The public half of the signing key as a JWK (RFC 7517), as published in the JWKS. */
export interface PublicJwk {
  kty: 'RSA';
  n: string;
  e: string;
  kid: string;
  alg: typeof PAYLOAD_JWS_ALG;
  use: 'sig';
  /** With a configured certificate: the chain, leaf first, base64 DER (RFC 7517 §4.7). */
  x5c?: string[];
  /** With a configured certificate: the leaf's SHA-1 thumbprint, base64url (§4.8), also in the JWS header. */
  x5t?: string;
  /** With a configured certificate: the leaf's SHA-256 thumbprint, base64url (§4.9). */
  'x5t#S256'?: string;
}

export interface PayloadSigner {
  /** The key's RFC 7638 thumbprint: the same key always has the same kid, across restarts and instances. */
  readonly kid: string;
  /** The payload as a compact JWS; `jku` is the absolute URL where publicJwks() is served. */
  signPayload(payload: CobPayload | CobVPayload, opts: { jku: string }): Promise<string>;
  /** The JWKS to serve at that URL. */
  publicJwks(): { keys: PublicJwk[] };
}

export class PayloadSigningError extends Error {
  override name = 'PayloadSigningError';
}

/** RFC 7638: SHA-256 over the required members in lexicographic order, without spaces, base64url. */
function rsaThumbprint(jwk: { e: string; n: string }): string {
  return createHash('sha256').update(JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n })).digest('base64url');
}

export function createPayloadSigner(key: PixSigningKey): PayloadSigner {
  const exported = key.publicKey.export({ format: 'jwk' });
  if (exported.kty !== 'RSA' || typeof exported.n !== 'string' || typeof exported.e !== 'string') {
    throw new PayloadSigningError('jws: the signing key is not an RSA key');
  }
  const kid = rsaThumbprint({ e: exported.e, n: exported.n });
  const jwk: PublicJwk = { kty: 'RSA', n: exported.n, e: exported.e, kid, alg: PAYLOAD_JWS_ALG, use: 'sig' };
  const chain = key.certificateChain ?? [];
  let x5t: string | undefined;
  if (chain.length > 0) {
    const leaf = chain[0].raw;
    x5t = createHash('sha1').update(leaf).digest('base64url');
    jwk.x5c = chain.map((c) => c.raw.toString('base64'));
    jwk.x5t = x5t;
    jwk['x5t#S256'] = createHash('sha256').update(leaf).digest('base64url');
  }
  const encoder = new TextEncoder();
  return {
    kid,
    async signPayload(payload, { jku }) {
      let url: URL;
      try {
        url = new URL(jku);
      } catch {
        throw new PayloadSigningError(`jws: jku "${jku}" is not an absolute URL`);
      }
      // the manual wants https; plain http is left for a local sandbox behind no TLS proxy
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new PayloadSigningError(`jws: jku must be an https URL (got ${url.protocol})`);
      return new CompactSign(encoder.encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: PAYLOAD_JWS_ALG, typ: 'JWS', kid, jku, ...(x5t ? { x5t } : {}) })
        .sign(key.privateKey);
    },
    publicJwks() {
      return { keys: [{ ...jwk, ...(jwk.x5c ? { x5c: [...jwk.x5c] } : {}) }] };
    },
  };
}
