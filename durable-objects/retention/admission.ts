/**
 * The upload admission rule, pure so that it is tested without storage: a new upload is refused
 * when it would pass the global limits (max_concurrent_uploads, max_upload_temp_bytes) or the
 * uploader's share of them (core/lib/limits.ts: uploadShare). The share is checked first, so an
 * agent over it is told so even while the server as a whole is full.
 */
import { uploadShare } from '../../core/lib/limits.js';

export interface Held {
  uploads: number;
  bytes: number;
}

export interface AdmissionRequest {
  reserveBytes: number;
  maxConcurrent: number;
  maxTempBytes: number;
}

export interface Refusal {
  message: string;
  limit: number;
}

export function admissionRefusal(request: AdmissionRequest, all: Held, agent: Held): Refusal | null {
  const share = uploadShare({
    max_concurrent_uploads: request.maxConcurrent,
    max_upload_temp_bytes: request.maxTempBytes,
  });
  if (agent.uploads + 1 > share.uploads) {
    return {
      message: `You already have ${agent.uploads} uploads in progress; one agent may have ${share.uploads} at once (a quarter of max_concurrent_uploads).`,
      limit: share.uploads,
    };
  }
  // An agent's first upload is judged by the global limits only: any file the server admits at all
  // can be sent by every agent.
  if (agent.uploads > 0 && agent.bytes + request.reserveBytes > share.bytes) {
    return {
      message: `Your uploads in progress would reserve more than ${share.bytes} bytes, one agent's share of max_upload_temp_bytes; wait for them to finish.`,
      limit: share.bytes,
    };
  }
  if (all.uploads + 1 > request.maxConcurrent) {
    return {
      message: `${all.uploads} uploads are in progress (max_concurrent_uploads).`,
      limit: request.maxConcurrent,
    };
  }
  if (all.bytes + request.reserveBytes > request.maxTempBytes) {
    return {
      message: 'Temporary upload storage is full (max_upload_temp_bytes); try again shortly.',
      limit: request.maxTempBytes,
    };
  }
  return null;
}
