/**
 * An SMTP server on 127.0.0.1 (the `smtp-server` package) that accepts every message and keeps it whole, so tests
 * read what a mail client would receive: envelope, headers and MIME parts. It can refuse recipients on demand.
 */
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message exactly as transmitted (RFC 5322 with MIME parts). */
  raw: string;
}

export class SmtpSink {
  readonly messages: ReceivedMail[] = [];
  /** Recipients answered `550` (a permanent failure for the sender). */
  readonly refused = new Set<string>();
  private server!: SMTPServer;
  port = 0;

  async start(): Promise<this> {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        if (this.refused.has(address.address.toLowerCase())) {
          const error = Object.assign(new Error("Mailbox unavailable"), { responseCode: 550 });
          return callback(error);
        }
        callback();
      },
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("end", () => {
          this.messages.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString("utf8"),
          });
          callback(null, "Queued");
        });
      },
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** One header of a raw message (unfolded), or null. */
export function mailHeader(raw: string, name: string): string | null {
  const head = raw.split(/\r?\n\r?\n/, 1)[0]!.replace(/\r?\n[ \t]+/g, " ");
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(name.length + 1).trim() : null;
}

/** The decoded body of the first MIME part of `contentType` (quoted-printable or base64 as nodemailer chose). */
export function mailPart(raw: string, contentType: string): string | null {
  const parts = raw.split(/\r?\n--[^\r\n]+/);
  for (const part of parts) {
    const [head = "", ...rest] = part.split(/\r?\n\r?\n/);
    if (!new RegExp(`content-type:\\s*${contentType.replace("/", "\\/")}`, "i").test(head)) continue;
    const body = rest.join("\n\n");
    if (/content-transfer-encoding:\s*base64/i.test(head))
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    if (/content-transfer-encoding:\s*quoted-printable/i.test(head)) {
      const bytes = body
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, "latin1").toString("utf8");
    }
    return body;
  }
  return null;
}
