import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A fake mail server for the tests: a real SMTP server (smtp-server, nodemailer's own) on a free
// local port that keeps what it is sent, parsed (mailparser). Recipients it is told to refuse get
// a 550, as a real server refuses an unknown mailbox.

export interface ReceivedMail {
  /** The envelope: who the client asked the server to deliver to. */
  rcptTo: string[];
  mailFrom: string | null;
  parsed: ParsedMail;
}

export interface FakeSmtp {
  url: string;
  received: ReceivedMail[];
  /** Recipients answered 550 (the client's sendMail fails). */
  refuse: Set<string>;
  close(): Promise<void>;
}

export async function startFakeSmtp(): Promise<FakeSmtp> {
  const received: ReceivedMail[] = [];
  const refuse = new Set<string>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (refuse.has(address.address.toLowerCase())) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
      callback();
    },
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          received.push({ rcptTo: session.envelope.rcptTo.map((r) => r.address), mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : null, parsed });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    refuse,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
