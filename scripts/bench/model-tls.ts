// What a model call's connection costs over TLS (issue 49, docs/benchmark.md): the service's
// OpenAI-compatible reader (server/modules/models/compatible.ts) against a local HTTPS server that
// streams 40 tokens, then `[DONE]`, then ends its response in a packet of its own, as a hosted
// API's does. Counts the TLS handshakes the server saw and the CPU of this process (the client
// and the server both: one process) per call, for N sequential calls after 20 warm-up calls.
// Not part of `npm run bench`. Needs `openssl` (a throwaway self-signed certificate).
//   node --import tsx scripts/bench/model-tls.ts [N=300]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';

const N = Number(process.argv[2] ?? 300);
const dir = process.env.MODEL_TLS_DIR;
if (!dir) {
  // The client trusts the certificate through NODE_EXTRA_CA_CERTS, read at start: run again with it.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'model-tls-'));
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(tmp, 'key.pem'), '-out', path.join(tmp, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    const child = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!, String(N)], { stdio: 'inherit', env: { ...process.env, MODEL_TLS_DIR: tmp, NODE_EXTRA_CA_CERTS: path.join(tmp, 'cert.pem') } });
    process.exitCode = child.status ?? 1;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
} else {
  const { createOpenAICompatible, OpenAICompatibleChatLanguageModel } = await import('@ai-sdk/openai-compatible');
  const { fastCompatibleChat } = await import('../../server/modules/models/compatible');
  let handshakes = 0;
  const server = https.createServer({ key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const base = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm' };
      for (let i = 0; i < 40; i++) res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: `w${i} ` }, finish_reason: null }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 40, total_tokens: 41 } })}\n\n`);
      res.write('data: [DONE]\n\n');
      setTimeout(() => res.end(), 1);
    });
  });
  server.on('secureConnection', () => handshakes++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const baseURL = `https://127.0.0.1:${(server.address() as { port: number }).port}/v1`;
  const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL, apiKey: 'x', includeUsage: true }).chatModel('m');
  if (!(provider instanceof OpenAICompatibleChatLanguageModel)) throw new Error('not the compatible chat model');
  const fast = fastCompatibleChat(provider, { baseURL, apiKey: 'x' });
  const call = async () => {
    const { stream } = await fast.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    for await (const part of stream as unknown as AsyncIterable<unknown>) void part;
    await new Promise((r) => setTimeout(r, 2));
  };
  for (let i = 0; i < 20; i++) await call();
  handshakes = 0;
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < N; i++) {
    const t = performance.now();
    await call();
    latencies.push(performance.now() - t - 2);
  }
  const cpu = process.cpuUsage(cpu0);
  latencies.sort((a, b) => a - b);
  console.log(`${N} calls over TLS: ${handshakes} handshakes; CPU ${((cpu.user + cpu.system) / 1000 / N).toFixed(2)} ms a call (client and server); latency p50 ${latencies[N >> 1]!.toFixed(2)} ms`);
  server.close();
  process.exit(0);
}
