import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileTooLargeError, fetchCapped } from './fetch-capped.js';

let base = '';
/** Bytes the server managed to write for the endless body before the client hung up. */
let endlessWritten = 0;
const server = createServer((request, response) => {
  if (request.url === '/small') return void response.writeHead(200, { 'content-length': 5 }).end('hello');
  if (request.url === '/declared-big')
    return void response.writeHead(200, { 'content-length': 10_000_000 }).end('x');
  if (request.url === '/endless') {
    response.writeHead(200);
    const chunk = Buffer.alloc(16 * 1024, 7);
    const pump = () => {
      while (!response.destroyed && endlessWritten < 50_000_000) {
        endlessWritten += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end();
    };
    return pump();
  }
  response.writeHead(404).end();
});
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('fetchCapped', () => {
  it('returns a body within the cap', async () => {
    expect((await fetchCapped(`${base}/small`, 5)).toString()).toBe('hello');
  });

  it('refuses a declared length over the cap before reading the body', async () => {
    await expect(fetchCapped(`${base}/declared-big`, 1000)).rejects.toBeInstanceOf(FileTooLargeError);
  });

  it('stops reading an undeclared body at the cap instead of taking it all', async () => {
    await expect(fetchCapped(`${base}/endless`, 100_000)).rejects.toBeInstanceOf(FileTooLargeError);
    expect(endlessWritten).toBeLessThan(50_000_000);
  });

  it('fails on an answer other than 2xx', async () => {
    await expect(fetchCapped(`${base}/missing`, 1000)).rejects.toThrow('file download answered 404');
  });
});
