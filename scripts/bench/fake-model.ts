// A model at a hosted model's pace for `npm run bench`, in a process of its own (so its CPU and
// its timers are not the load generator's): the fake OpenAI-compatible server of the tests
// streaming a 40-token answer, one token every BENCH_TOKEN_MS (30) after BENCH_FIRST_TOKEN_MS (30),
// about 1.2 s in all. It tells its parent its URL, and answers `stats` with what it served;
// after `watch-aborted` it says `aborted` as soon as (1 ms poll) a client has dropped a response.
import { startFakeOpenAI } from '../../test/fakes/openai';

const TOKENS = 40;
const TOKEN_MS = Number(process.env.BENCH_TOKEN_MS ?? 30);
const FIRST_MS = Number(process.env.BENCH_FIRST_TOKEN_MS ?? 30);
const REPLY = Array.from({ length: TOKENS }, (_, i) => `word${i}`).join(' ');

let times: number[] = [];
const fake = await startFakeOpenAI({
  latencyMs: FIRST_MS,
  chunkDelayMs: TOKEN_MS,
  reply: () => REPLY,
  record: false,
  onServed: (ms) => times.length < 1_000_000 && times.push(ms),
});

process.on('message', (msg: string) => {
  if (msg === 'stats') {
    process.send!({ type: 'stats', served: fake.served, maxInFlight: fake.maxInFlight, aborted: fake.aborted, times });
  } else if (msg === 'reset') {
    fake.reset();
    times = [];
    process.send!({ type: 'reset' });
  } else if (msg === 'watch-aborted') {
    const from = fake.aborted;
    const poll = setInterval(() => {
      if (fake.aborted === from) return;
      clearInterval(poll);
      process.send!({ type: 'aborted' });
    }, 1);
    setTimeout(() => clearInterval(poll), 5000).unref();
    process.send!({ type: 'watching' });
  }
});
process.on('disconnect', () => void fake.close().finally(() => process.exit(0)));
process.send!({ type: 'ready', url: fake.url });
