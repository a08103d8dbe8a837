// Signed webhooks: a JSON body POSTed to a user-given URL through the SSRF guard, with
//   X-Deep-Research-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed by WEBHOOK_SECRET>
// and a delivery id the receiver can deduplicate on. No redirects are followed; any non-2xx is a
// failure Temporal retries (4xx other than 408/429 are not retried).
import { ApplicationFailure } from '@temporalio/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Agent, fetch } from 'undici';
import { checkUrl, FetchRefusedError, guardedLookup } from '../fetching/guard';

export const SIGNATURE_HEADER = 'x-deep-research-signature';
export const DELIVERY_ID_HEADER = 'x-deep-research-delivery';
export const EVENT_HEADER = 'x-deep-research-event';

export function sign(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** For receivers: true when the header signs this body with this secret within the tolerance. */
export function verifySignature(secret: string, header: string | undefined, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=', 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isFinite(t) || !parts.v1 || Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(sign(secret, t, body).split('v1=')[1], 'hex');
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface WebhookRequest {
  url: string;
  body: string;
  event: string;
  deliveryId: string;
  secret: string;
  allow: Set<string>;
  userAgent: string;
  signal?: AbortSignal;
}

export async function postWebhook(req: WebhookRequest): Promise<number> {
  let target;
  try {
    target = checkUrl(req.url, req.allow);
  } catch (err) {
    throw ApplicationFailure.nonRetryable((err as Error).message, 'FetchRefused');
  }
  const dispatcher = new Agent({ connect: { timeout: 10_000, ...(target.allowed ? {} : { lookup: guardedLookup }) }, headersTimeout: 30_000, bodyTimeout: 30_000 });
  try {
    const timestamp = Math.floor(Date.now() / 1000);
    const res = await fetch(target.url, {
      method: 'POST',
      dispatcher,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(30_000), ...(req.signal ? [req.signal] : [])]),
      headers: {
        'content-type': 'application/json',
        'user-agent': req.userAgent,
        [SIGNATURE_HEADER]: sign(req.secret, timestamp, req.body),
        [DELIVERY_ID_HEADER]: req.deliveryId,
        [EVENT_HEADER]: req.event,
      },
      body: req.body,
    });
    await res.body?.cancel();
    if (res.ok) return res.status;
    const message = `webhook ${target.url.origin}${target.url.pathname} answered HTTP ${res.status}`;
    if (res.status >= 300 && res.status < 400) throw ApplicationFailure.nonRetryable(`${message} (a redirect: give the final URL; redirects are not followed)`, 'DeliveryRefused');
    if (res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429) throw ApplicationFailure.nonRetryable(message, 'DeliveryRefused');
    throw ApplicationFailure.retryable(message, 'DeliveryFailed');
  } catch (err) {
    if (err instanceof ApplicationFailure) throw err;
    const cause = (err as { cause?: Error }).cause;
    if (cause instanceof FetchRefusedError) throw ApplicationFailure.nonRetryable(cause.message, 'FetchRefused');
    throw ApplicationFailure.retryable(`webhook ${target.url.origin}: ${cause?.message ?? (err as Error).message}`, 'DeliveryFailed');
  } finally {
    await dispatcher.close();
  }
}
