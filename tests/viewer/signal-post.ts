import { request } from 'node:http';
import type { Answer } from './http-get.js';

/** A POST with headers of our choosing (fetch would set Origin and Sec-Fetch-* itself). */
export function post(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The token a viewer embeds in its page when it allows signals, or undefined. */
export function pageToken(html: string): string | undefined {
  return /<meta name="groundswell-signal-token" content="([^"]+)">/.exec(html)?.[1];
}
