// E-mail over SMTP: the report as the HTML body (plain text beside it), with the Markdown and a
// PDF attached. The server and its credentials come only from SMTP_* environment variables (the
// config's environment section).
// Nodemailer makes one attempt; Temporal retries the activity.
import { ApplicationFailure } from '@temporalio/common';
import type { createTransport as CreateTransport } from 'nodemailer';
import type { SmtpSettings } from '../config/environment';
import { contentHtml, contentPdf, type DeliveryContent } from './content';

export interface SmtpConfig {
  host: string;
  port: number;
  secure: boolean;
  user?: string;
  pass?: string;
  from: string;
}

/** The SMTP server the config's environment names, checked: a missing host or a bad port is a configuration error. */
export function smtpOf(settings: SmtpSettings): SmtpConfig {
  const { host, port, secure, user, pass } = settings;
  if (!host) throw ApplicationFailure.nonRetryable('e-mail delivery needs SMTP_HOST (and SMTP_PORT, SMTP_FROM; SMTP_USER and SMTP_PASS if the server wants a login)', 'ConfigurationError');
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw ApplicationFailure.nonRetryable('SMTP_PORT is not a port number', 'ConfigurationError');
  const from = settings.from || (user?.includes('@') ? user : `deep-research@${host}`);
  return { host, port, secure, user, pass, from };
}

export function safeFileName(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 60) || 'report';
}

/** Sends one message; returns the server's answer to the data (e.g. "250 OK: queued"). */
export async function sendReportEmail(smtp: SmtpConfig, to: string[], content: DeliveryContent, baseName: string, headers: Record<string, string> = {}): Promise<string> {
  // Loaded when mail is first sent, not with every worker.
  const { createTransport } = require('nodemailer') as { createTransport: typeof CreateTransport };
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user ? { auth: { user: smtp.user, pass: smtp.pass ?? '' } } : {}),
    connectionTimeout: 20_000,
    greetingTimeout: 20_000,
    socketTimeout: 60_000,
  });
  try {
    const info = await transport.sendMail({
      from: smtp.from,
      to,
      subject: content.subject,
      text: `${content.note}\n\n${content.markdown}`,
      html: contentHtml(content),
      headers,
      attachments: [
        { filename: `${baseName}.md`, content: content.markdown, contentType: 'text/markdown; charset=utf-8' },
        { filename: `${baseName}.pdf`, content: await contentPdf(content), contentType: 'application/pdf' },
      ],
    });
    return String(info.response ?? 'sent');
  } catch (err) {
    throw smtpFailure(err, smtp);
  } finally {
    transport.close();
  }
}

function smtpFailure(err: unknown, smtp: SmtpConfig): ApplicationFailure {
  const e = err as { code?: string; responseCode?: number; message?: string };
  const message = `sending mail through ${smtp.host}:${smtp.port}: ${e.message ?? String(err)}`;
  if (e.code === 'EAUTH') return ApplicationFailure.nonRetryable(`${message} (login refused: check SMTP_USER and SMTP_PASS)`, 'AuthenticationError');
  // 5xx answers are permanent (unknown recipient, message refused); 4xx and lost connections are worth retrying.
  if (e.responseCode !== undefined && e.responseCode >= 500) return ApplicationFailure.nonRetryable(message, 'DeliveryRefused');
  if (e.code === 'EENVELOPE') return ApplicationFailure.nonRetryable(message, 'DeliveryRefused');
  return ApplicationFailure.retryable(message, 'DeliveryFailed');
}
