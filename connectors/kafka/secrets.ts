import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Secrets of stream sources (SASL passwords, TLS keys) sealed at rest with
 * AES-256-GCM: the catalog holds `v1.<iv>.<tag>.<ciphertext>` (base64url), so a
 * copy of the catalog alone reveals no password. The key comes from config
 * (PCG_SOURCE_SECRET_KEY); without one, a random key is generated once into a
 * file beside the data (mode 0600) — enough against a leaked catalog, not
 * against a leaked data directory: set the variable for that.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secret: string | Buffer) {
    this.key = createHash('sha256').update(secret).digest();
  }

  /** The configured key, or the one in `keyFile` (made on first use). */
  static fromConfig(configured: string | undefined, keyFile: string): SecretBox {
    if (configured) return new SecretBox(configured);
    if (!existsSync(keyFile)) {
      mkdirSync(dirname(keyFile), { recursive: true });
      // wx: two processes starting at once never overwrite each other's key.
      try {
        writeFileSync(keyFile, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    return new SecretBox(readFileSync(keyFile, 'utf8').trim());
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
  }

  /** The plain text; throws when the key is not the one it was sealed with. */
  open(sealed: string): string {
    const [v, iv, tag, data] = sealed.split('.');
    if (v !== 'v1' || iv === undefined || tag === undefined || data === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
