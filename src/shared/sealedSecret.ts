/**
 * An API key on its way from the client's SecretStorage to the language server, sealed (AES-256-GCM) with a
 * key of the session that only these two processes know: the client makes it when it starts the server and
 * hands it over in the server's environment, never through LSP. So a verbose LSP trace
 * (`vesLens.trace.server`), which logs every request's parameters and result, shows only ciphertext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';

/** The server process's environment variable that carries the session key (base64), removed once read. */
export const SESSION_KEY_ENV = 'VES_LENS_SESSION_KEY';

export interface SealedSecret {
  /** Base64: the nonce, the authentication tag and the encrypted text. */
  iv: string;
  tag: string;
  data: string;
}

export function newSessionKey(): Buffer {
  return randomBytes(32);
}

export function sealSecret(secret: string, sessionKey: Buffer): SealedSecret {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sessionKey, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
}

/** The secret, or an error when it was sealed with another key or changed on the way. */
export function unsealSecret(sealed: SealedSecret, sessionKey: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', sessionKey, Buffer.from(sealed.iv, 'base64'));
  decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]).toString('utf8');
}
