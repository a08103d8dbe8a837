// A small S3-compatible object store on loopback (path-style PUT/GET/HEAD/DELETE of objects), enough
// for the artifact store's contract. It checks that requests are signed, not the signature itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeS3 {
  url: string;
  objects: Map<string, { body: Buffer; contentType: string }>;
  /** Requests answered so far. */
  readonly requests: number;
  /** Stops listening and cuts every connection (connections are refused), keeping the objects, as an outage would. */
  pause(): Promise<void>;
  /** Listens again on the same port. */
  resume(): Promise<void>;
  close(): Promise<void>;
}

const notFound = (res: http.ServerResponse, key: string) =>
  res
    .writeHead(404, { 'content-type': 'application/xml' })
    .end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message><Key>${key}</Key></Error>`);

export async function startFakeS3(): Promise<FakeS3> {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests++;
    void (async () => {
      if (!/^AWS4-HMAC-SHA256 Credential=/.test(req.headers.authorization ?? '')) {
        res.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code><Message>unsigned</Message></Error>');
        return;
      }
      const key = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname.slice(1));
      if (req.method === 'PUT') {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        objects.set(key, { body, contentType: req.headers['content-type'] ?? 'application/octet-stream' });
        res.writeHead(200, { etag: `"${body.length}"` }).end();
        return;
      }
      if (req.method === 'DELETE') {
        objects.delete(key);
        res.writeHead(204).end();
        return;
      }
      const object = objects.get(key);
      if (!object) return notFound(res, key);
      res.writeHead(200, { 'content-type': object.contentType, 'content-length': object.body.length, etag: `"${object.body.length}"` });
      res.end(req.method === 'HEAD' ? undefined : object.body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    objects,
    get requests() {
      return requests;
    },
    pause: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
    resume: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
