// The invitation code a server sent to an address, for stories that accept invitations by code. An
// outbox row's text is erased once the message is delivered, so the emails handed to the transport
// are kept too, and the code is waited for (the outbox driven meanwhile), never read just once.
import type { TestServer } from './http.ts';

export interface SentEmails {
  /** The code in the newest message to the address, once one has been queued or delivered. */
  codeSentTo(address: string): Promise<string>;
}

/** Keeps every email the server hands its transport: call it in test.before, before anything is sent. */
export function captureEmails(server: TestServer): SentEmails {
  const delivered: { to: string; text: string }[] = [];
  server.engine.services.messages.setTransport('email', async (message) => {
    delivered.push({ to: message.to, text: message.text });
  });
  return {
    async codeSentTo(address) {
      for (let tries = 0; tries < 600; tries++) {
        const rows = await server.engine.sql<{ text: string }[]>`select payload->>'text' as text from outbox where payload->>'to' = ${address} order by id desc limit 1`;
        const texts = [rows[0]?.text ?? '', ...delivered.filter((message) => message.to === address).map((message) => message.text).reverse()];
        for (const text of texts) {
          const match = /code:? ([0-9A-Z-]+)/.exec(text);
          if (match) return match[1];
        }
        await server.engine.outbox.runOnce();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no invitation code sent to ${address}`);
    },
  };
}
