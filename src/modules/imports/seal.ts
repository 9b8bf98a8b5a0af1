/**
 * A running import's secret (its source's address and token) sealed to another node, so that
 * node can take the run over when its own dies, while the secret is stored nowhere in clear:
 * each node makes an ECDH P-256 key pair at its start, its private half never leaves its memory
 * (not extractable), and publishes the public half. Sealing is ECIES: a key pair made for the
 * one message, ECDH with the node's public key, HKDF-SHA-256, AES-256-GCM with the run's id as
 * associated data (a copy sealed for one run cannot be passed off as another's). A node that
 * restarted has a new key: what was sealed to the old one can no longer be opened by anyone.
 */

const CURVE = { name: 'ECDH', namedCurve: 'P-256' } as const;
/** An uncompressed P-256 point. */
const POINT_BYTES = 65;
const IV_BYTES = 12;
const INFO = new TextEncoder().encode('slink import secret');

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

async function aesKey(
  priv: CryptoKey,
  pub: CryptoKey,
  salt: Uint8Array<ArrayBuffer>,
  use: 'encrypt' | 'decrypt',
): Promise<CryptoKey> {
  const shared = await crypto.subtle.deriveBits({ name: 'ECDH', public: pub }, priv, 256);
  const hkdf = await crypto.subtle.importKey('raw', shared, 'HKDF', false, ['deriveKey']);
  return crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt, info: INFO },
    hkdf,
    { name: 'AES-GCM', length: 256 },
    false,
    [use],
  );
}

/** This node's key pair: the public half to publish, the private half to open what is sealed to it. */
export class NodeKey {
  private constructor(
    private readonly pair: CryptoKeyPair,
    /** The public half, base64 of its raw (uncompressed) point. */
    readonly publicKey: string,
  ) {}

  static async create(): Promise<NodeKey> {
    const pair = (await crypto.subtle.generateKey(CURVE, false, ['deriveBits'])) as CryptoKeyPair;
    const raw = new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey));
    return new NodeKey(pair, b64(raw));
  }

  /** What `seal` made for this key and this run, or null when it was not (another key, another run, altered). */
  async open(sealed: string, runId: string): Promise<string | null> {
    try {
      const bytes = new Uint8Array(Buffer.from(sealed, 'base64'));
      const point = bytes.subarray(0, POINT_BYTES);
      const iv = bytes.subarray(POINT_BYTES, POINT_BYTES + IV_BYTES);
      const eph = await crypto.subtle.importKey('raw', point, CURVE, false, []);
      const key = await aesKey(this.pair.privateKey, eph, point, 'decrypt');
      const plain = await crypto.subtle.decrypt(
        { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(runId) },
        key,
        bytes.subarray(POINT_BYTES + IV_BYTES),
      );
      return new TextDecoder().decode(plain);
    } catch {
      return null;
    }
  }
}

/** `secret` sealed to the node whose public key (base64, raw) this is, for the run `runId`. */
export async function seal(publicKey: string, runId: string, secret: string): Promise<string> {
  const to = await crypto.subtle.importKey('raw', new Uint8Array(Buffer.from(publicKey, 'base64')), CURVE, false, []);
  const eph = (await crypto.subtle.generateKey(CURVE, true, ['deriveBits'])) as CryptoKeyPair;
  const point = new Uint8Array(await crypto.subtle.exportKey('raw', eph.publicKey));
  const key = await aesKey(eph.privateKey, to, point, 'encrypt');
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const cipher = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: 'AES-GCM', iv, additionalData: new TextEncoder().encode(runId) },
      key,
      new TextEncoder().encode(secret),
    ),
  );
  const out = new Uint8Array(POINT_BYTES + IV_BYTES + cipher.length);
  out.set(point, 0);
  out.set(iv, POINT_BYTES);
  out.set(cipher, POINT_BYTES + IV_BYTES);
  return b64(out);
}
