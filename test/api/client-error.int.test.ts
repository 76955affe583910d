// test: once — engine-agnostic: runs on PostgreSQL alone (docs/testing.md, "Once or on both databases")
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientErrorAnswer } from '../../server/platform/http/client-error';
import { REQUEST_ID } from '../expect';
import { createTestDatabase, DB_KIND, prepareDataDir, TEST_AUTH_SECRET } from '../harness';
import { startProcess, stop, waitReady, type Proc } from '../processes';
import { until } from '../eventually';

// A request Node's HTTP parser refuses (the server's 'clientError') is answered in the error
// envelope with X-Request-Id, like any other error, instead of a bare `400` with no body: over
// a raw TCP socket, since no HTTP client sends such requests. A real server process, whose
// stdout is the log: the refusal is logged with its request id, never with the request's bytes.

const KEY = 'svc_live_sk_CANARYcanary0123456789abcdefghijkl7Zq2';

let server: Proc | undefined;
let pg: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aas-client-error-'));

before(async () => {
  pg = DB_KIND === 'postgres' ? await createTestDatabase() : undefined;
  if (!pg) await prepareDataDir(tmp);
  const env: Record<string, string> = pg ? { DATABASE_URL: pg.url, AUTH_SECRET: TEST_AUTH_SECRET } : { DATA_DIR: tmp };
  server = await startProcess({ ...env, LOG_LEVEL: 'info', RUN_WORKERS: 'false' });
  await waitReady(server);
});
after(async () => {
  await stop(server);
  await pg?.drop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (it always should after refusing a request). */
  closed: boolean;
}

/** Writes `request` as is on a fresh connection; resolves with the first answer, once the server closes. */
function raw(request: string | Buffer): Promise<RawAnswer> {
  const url = new URL(server!.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port: Number(url.port), host: url.hostname });
    let text = '';
    socket.on('connect', () => socket.write(request));
    socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, body: rest.join('\r\n\r\n'), closed: true });
    });
    setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open: ${text.slice(0, 300)}`));
    }, 8_000).unref();
  });
}

/** The answer is our error envelope with this status and code, its request id in the header too. */
function expectEnvelope(res: RawAnswer, status: number, code: string): { message: string; requestId: string } {
  assert.equal(res.status, status, JSON.stringify(res));
  assert.match(res.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(Number(res.headers['content-length']), Buffer.byteLength(res.body));
  assert.equal(res.headers.connection, 'close');
  assert.equal(res.headers['x-content-type-options'], 'nosniff');
  assert.equal(res.headers['cache-control'], 'no-store');
  const { error } = JSON.parse(res.body) as { error: Record<string, string> };
  assert.deepEqual(Object.keys(error), ['type', 'code', 'message', 'requestId']);
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.code, code);
  assert.match(error.requestId!, REQUEST_ID);
  assert.equal(res.headers['x-request-id'], error.requestId);
  assert.ok(res.closed);
  return { message: error.message!, requestId: error.requestId! };
}

const get = (headers: string) => `GET /v1/agents HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;

describe('requests the HTTP parser refuses', () => {
  it('a key pasted with a trailing newline: 400 malformed_request saying what to check', async () => {
    const res = await raw(get(`Authorization: Bearer ${KEY}\n\r\n`));
    const { message } = expectEnvelope(res, 400, 'malformed_request');
    assert.match(message, /could not be parsed/);
    assert.match(message, /trailing newline/);
  });

  it('a key with a carriage return or a control character after it: the same', async () => {
    for (const garbage of ['\r', '\x01', '\x7f']) {
      expectEnvelope(await raw(get(`Authorization: Bearer ${KEY}${garbage}\r\n`)), 400, 'malformed_request');
    }
  });

  it('a broken request line or body framing: 400 malformed_request', async () => {
    for (const request of [
      'HELLO\r\n\r\n',
      'GET /v1/agents HTTP/7.0\r\nHost: localhost\r\n\r\n',
      'GET /v1/agents HTTP/1.1\r\nHost: localhost\r\nBad Header: x\r\n\r\n',
      'POST /v1/agents HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
    ]) {
      const { message } = expectEnvelope(await raw(request), 400, 'malformed_request');
      assert.match(message, /could not be parsed/, request);
    }
  });

  it('headers over 16 KiB: 431 request_header_too_large, read by the client even while it is still sending', async () => {
    for (const size of [20_000, 200_000]) {
      const res = await raw(get(`X-Padding: ${'a'.repeat(size)}\r\n`));
      expectEnvelope(res, 431, 'request_header_too_large');
    }
  });

  it('logs the request id and the parser’s error, never the request’s bytes', async () => {
    const { requestId } = expectEnvelope(await raw(get(`Authorization: Bearer ${KEY}\x01\r\n`)), 400, 'malformed_request');
    // The line is written as the refusal is answered: wait for it to come through the pipe.
    await until('the log line of the refusal', () => server!.output.includes(requestId), { timeoutMs: 5_000 });
    const line = server!.output.split('\n').find((l) => l.includes(requestId));
    assert.ok(line, `no log line with ${requestId}`);
    const logged = JSON.parse(line) as Record<string, unknown>;
    assert.equal(logged.msg, 'request could not be parsed');
    assert.equal(logged.parserError, 'HPE_INVALID_HEADER_TOKEN');
    assert.equal(logged.status, 400);
    assert.ok(!server!.output.includes('CANARY'), 'the key reached the log');
  });

  it('leaves well-formed requests alone, and answers a bad one after a good one on the same connection', async () => {
    const res = await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n${get('Bad Header: x\r\n')}`);
    assert.equal(res.status, 200, 'the first request is answered normally');
    const second = res.body.slice(res.body.indexOf('HTTP/1.1 '));
    assert.match(second, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(second, /"code":"malformed_request"/);
  });
});

describe('the answer for each parser error', () => {
  it('maps timeouts to 408, overflowing headers to 431, the rest to 400', () => {
    assert.equal(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT').status, 408);
    assert.equal(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT').code, 'request_timeout');
    assert.equal(clientErrorAnswer('HPE_HEADER_OVERFLOW').code, 'request_header_too_large');
    for (const code of ['HPE_INVALID_METHOD', 'HPE_INVALID_CHUNK_SIZE', 'HPE_CHUNK_EXTENSIONS_OVERFLOW', undefined]) {
      assert.equal(clientErrorAnswer(code).code, 'malformed_request', String(code));
      assert.doesNotMatch(clientErrorAnswer(code).message, /newline/);
    }
    assert.match(clientErrorAnswer('HPE_CR_EXPECTED').message, /trailing newline/);
  });
});
