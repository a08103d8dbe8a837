// Receivers for delivery tests: a real SMTP server and a webhook endpoint, both on loopback.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface FakeSmtp {
  port: number;
  mails: ParsedMail[];
  close(): Promise<void>;
}

/** Accepts every message; recipients starting with "nobody@" are refused with 550. */
export async function startSmtp(): Promise<FakeSmtp> {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (address.address.startsWith('nobody@')) {
        const err = new Error('5.1.1 no such mailbox') as Error & { responseCode: number };
        err.responseCode = 550;
        return callback(err);
      }
      callback();
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          mails.push(mail);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise((r) => server.close(() => r())) };
}

export interface WebhookCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  answered: number;
}

export interface FakeWebhook {
  url: string;
  host: string;
  calls: WebhookCall[];
  close(): Promise<void>;
}

/** A receiver that fails its first `failFirst` calls with 500, or answers each call with what `failFirst(n)` says. */
export async function startWebhookReceiver(failFirst: number | ((call: number) => number) = 1): Promise<FakeWebhook> {
  const calls: WebhookCall[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answered = typeof failFirst === 'function' ? failFirst(calls.length) : calls.length < failFirst ? 500 : 204;
      calls.push({ path: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), answered });
      res.writeHead(answered).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/research`,
    host: `127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
