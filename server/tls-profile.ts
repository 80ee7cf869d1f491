/**
 * The TLS profile of the front: TLS 1.2 and 1.3 only, and under TLS 1.2 only ECDHE key exchange
 * with AEAD ciphers (AES-GCM, ChaCha20-Poly1305), the "intermediate" set of Mozilla's server-side
 * TLS guidelines. Static-RSA key exchange (no forward secrecy) and CBC suites (padding-oracle
 * history) are not offered. TLS 1.3's suites are all forward-secret AEAD; Node enables its three.
 */
import type { SecureContextOptions, TlsOptions } from 'node:tls';

export const TLS12_CIPHERS = [
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
];

export const TLS13_CIPHERS = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

export const TLS_PROFILE: Pick<TlsOptions & SecureContextOptions, 'minVersion' | 'ciphers' | 'honorCipherOrder'> = {
  minVersion: 'TLSv1.2',
  ciphers: [...TLS13_CIPHERS, ...TLS12_CIPHERS].join(':'),
  honorCipherOrder: true,
};
