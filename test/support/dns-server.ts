import { createSocket, type Socket } from 'node:dgram';
import dnsPacket from 'dns-packet';

/**
 * A small authoritative DNS server on 127.0.0.1 (UDP) for the names a test
 * publishes: TXT records only, NXDOMAIN for anything else. The service asks
 * it when started with DNS_RESOLVERS=127.0.0.1:<port>.
 */
export interface TestDnsServer {
  readonly port: number;
  /** `host:port`, as DNS_RESOLVERS takes it. */
  readonly address: string;
  /** Publishes a TXT record (another value at the same name is added beside it). */
  publishTxt(name: string, value: string): void;
  /** Removes every record at `name`. */
  unpublish(name: string): void;
  /** The names asked for so far, lower-cased. */
  readonly questions: string[];
  close(): Promise<void>;
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const records = new Map<string, string[]>();
  const questions: string[] = [];
  const socket: Socket = createSocket('udp4');
  socket.on('message', (message, remote) => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return; // not DNS: nothing to answer
    }
    const question = query.questions?.[0];
    if (!question) return;
    const name = question.name.toLowerCase();
    questions.push(name);
    const values = question.type === 'TXT' ? (records.get(name) ?? []) : [];
    const known = records.has(name);
    const answer = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (known ? 0 : 3), // rcode 3: NXDOMAIN
      questions: [question],
      answers: values.map((value) => ({
        type: 'TXT' as const,
        name: question.name,
        ttl: 0,
        data: value,
      })),
    });
    socket.send(answer, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  return {
    port,
    address: `127.0.0.1:${port}`,
    publishTxt(name, value) {
      const key = name.toLowerCase();
      records.set(key, [...(records.get(key) ?? []), value]);
    },
    unpublish(name) {
      records.delete(name.toLowerCase());
    },
    questions,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
