import type { IncomingHttpHeaders } from 'node:http';
import { WebSocket } from 'ws';

/** What a WebSocket handshake got: 101 when the upgrade was accepted, else the HTTP answer. */
export interface Handshake {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** Opens a WebSocket at `url` with these headers and closes it at once, or reads the refusal. */
export function handshake(url: string, headers: Record<string, string>): Promise<Handshake> {
  const socket = new WebSocket(url, { headers });
  socket.on('error', () => undefined);
  return new Promise((resolve) => {
    socket.once('upgrade', (response) => {
      socket.once('open', () => {
        socket.close();
        resolve({ status: 101, headers: response.headers, body: null });
      });
    });
    socket.once('unexpected-response', (_request, response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        socket.terminate();
        resolve({
          status: response.statusCode!,
          headers: response.headers,
          body: JSON.parse(text),
        });
      });
    });
  });
}
