import nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';

// Outgoing mail (docs/teams.md, "Invitations"), by nodemailer — the maintained SMTP client — when
// SMTP_URL is set. A message is text only (nothing a name could inject into HTML), and every
// header value is one line: a workspace's name goes into a subject. The URL carries the server's
// credentials: it is never logged.

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** Sends `message`; resolves when the SMTP server accepted it, rejects when it did not (within the timeouts). */
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** A header value on one line, at most `max` characters: control characters become spaces. */
export function headerText(value: string, max = 200): string {
  const line = value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Connect, greeting and socket timeouts: a slow mail server delays an invitation by at most this. */
const TIMEOUT_MS = 10_000;

export function createMailer(opts: { url: string; from: string }): Mailer {
  const transport: Transporter = nodemailer.createTransport({
    url: opts.url,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  return {
    async send(message) {
      await transport.sendMail({ from: opts.from, to: message.to, subject: headerText(message.subject), text: message.text });
    },
    close() {
      transport.close();
    },
  };
}

/** The process's mailer, or null without SMTP_URL. */
export function mailerFrom(env: { SMTP_URL?: string; MAIL_FROM: string }): Mailer | null {
  if (!env.SMTP_URL) return null;
  return createMailer({ url: env.SMTP_URL, from: env.MAIL_FROM });
}
