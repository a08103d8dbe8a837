// Delivery and schedule types shared by the workflow, activities and clients. No runtime code.
import type { DeliveryEvent } from './names';

export type { DeliveryEvent } from './names';
export type { DeliverySettings } from './settings';

/** One delivery attempt as the session log keeps it. */
export interface DeliveryRecord {
  event: DeliveryEvent;
  channel: 'email' | 'webhook';
  /** The recipients, or the webhook URL. */
  target: string;
  ok: boolean;
  /** Attempts Temporal made: the successful one's number, or all of them when retries ran out. */
  attempts?: number;
  at: string;
  /** The webhook's HTTP status or the SMTP server's answer. */
  response?: string;
  error?: string;
  /** Sent again with `deliver` after the session ended (the same event, the same delivery id). */
  resent?: boolean;
}

/** A scheduled run compared with the schedule's previous completed run (an enhanced version: with its parent). */
export interface WhatChanged {
  previous_id?: string;
  new_sources: number;
  changed_sources: number;
  gone_sources: number;
  new_findings: number;
  changed_findings: number;
  gone_findings: number;
  /** Earlier findings read again, in other words, from pages whose text did not change: neither changed nor gone. */
  reread_findings?: number;
}
