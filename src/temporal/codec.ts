// Encrypted payloads: with DEEP_RESEARCH_PAYLOAD_KEYS ("k2:<base64 32 bytes>,k1:<base64>") every
// payload Temporal stores (inputs, results, queries' answers, history) is AES-256-GCM ciphertext.
// The first key encrypts; every listed key decrypts, so a key is rotated by putting a new one first
// and dropping the old one once no open history still needs it.
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { PAYLOAD_KEYS_ENV } from '../config/environment';

export { PAYLOAD_KEYS_ENV };
export const ENCRYPTED_ENCODING = 'binary/encrypted';
const KEY_ID_FIELD = 'encryption-key-id';
const IV_BYTES = 12;
const TAG_BYTES = 16;

const ProtoPayload = temporal.api.common.v1.Payload;

export interface PayloadKey {
  id: string;
  key: Buffer;
}

/** Parses "id:base64,id:base64"; refuses anything that is not a 32-byte key under a simple id. */
export function parsePayloadKeys(spec: string): PayloadKey[] {
  const keys = spec
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const sep = part.indexOf(':');
      const id = sep > 0 ? part.slice(0, sep) : '';
      if (!/^[A-Za-z0-9_.-]{1,64}$/.test(id)) throw new Error(`${PAYLOAD_KEYS_ENV}: each key is "<id>:<base64 key>" with a plain id`);
      const key = Buffer.from(part.slice(sep + 1), 'base64');
      if (key.length !== 32) throw new Error(`${PAYLOAD_KEYS_ENV}: key "${id}" must be 32 bytes (base64), got ${key.length}`);
      return { id, key };
    });
  if (keys.length === 0) throw new Error(`${PAYLOAD_KEYS_ENV} is set but lists no key`);
  if (new Set(keys.map((k) => k.id)).size !== keys.length) throw new Error(`${PAYLOAD_KEYS_ENV}: key ids must be distinct`);
  return keys;
}

export class EncryptionCodec implements PayloadCodec {
  private readonly byId: Map<string, Buffer>;

  constructor(private readonly keys: PayloadKey[]) {
    if (keys.length === 0) throw new Error('EncryptionCodec needs at least one key');
    this.byId = new Map(keys.map((k) => [k.id, k.key]));
  }

  get encryptingKeyId(): string {
    return this.keys[0].id;
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const { id, key } = this.keys[0];
    return payloads.map((payload) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const plain = ProtoPayload.encode(payload).finish();
      const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_FIELD]: Buffer.from(id) },
        data: new Uint8Array(sealed),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (Buffer.from(payload.metadata?.encoding ?? []).toString() !== ENCRYPTED_ENCODING) return payload;
      const keyId = Buffer.from(payload.metadata?.[KEY_ID_FIELD] ?? []).toString();
      const key = this.byId.get(keyId);
      if (!key) throw new Error(`payload encrypted with key "${keyId}", which ${PAYLOAD_KEYS_ENV} does not hold`);
      const sealed = Buffer.from(payload.data ?? []);
      if (sealed.length < IV_BYTES + TAG_BYTES) throw new Error('encrypted payload is truncated');
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      const plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
      return ProtoPayload.decode(plain) as Payload;
    });
  }
}

/** The codec for DEEP_RESEARCH_PAYLOAD_KEYS as given (config.environment.temporal.payload_keys), or undefined when payloads stay plain. */
export function payloadCodecOf(payloadKeys: string | undefined): EncryptionCodec | undefined {
  return payloadKeys?.trim() ? new EncryptionCodec(parsePayloadKeys(payloadKeys)) : undefined;
}

/**
 * The failure converter module (compiled .js when built, the .ts source in development): failure
 * messages and stack traces become an encoded payload, which the codec encrypts. Workflow bundles
 * are built with it too (`bundleWorkflowCode({ failureConverterPath })`).
 */
export const FAILURE_CONVERTER_PATH = ['failure-converter.js', 'failure-converter.ts'].map((f) => path.join(__dirname, f)).find((f) => existsSync(f)) as string;

/**
 * A data converter for clients and workers: failures always as encoded attributes, payloads
 * encrypted when keys are set.
 */
export function dataConverterOf(payloadKeys: string | undefined): DataConverter {
  const codec = payloadCodecOf(payloadKeys);
  return { failureConverterPath: FAILURE_CONVERTER_PATH, ...(codec ? { payloadCodecs: [codec] } : {}) };
}
